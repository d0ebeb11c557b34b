// The binary form of a simulation's state, for checkpoints: a StateWriter streams values to a
// file and a StateReader reads them back in the same order. Values are written as their bytes
// (the checkpoint is for the same build on the same machine type: the header says which, and a
// reader refuses another). Sections carry a tag, so a reader that drifts out of step with the
// writer fails at the next tag instead of reading garbage; the file ends with a hash of every
// byte before it, so a torn or damaged file is refused. Both also work in memory, without file
// or hash: a message that travels to another MPI rank is written and read as a checkpoint's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace dlsim {

class StateWriter {
 public:
  /// Creates (truncates) `path`. EnvironmentError naming it when it cannot be opened.
  explicit StateWriter(std::string path);
  /// Appends to `memory` (which outlives the writer) instead: no file, no hash trailer.
  explicit StateWriter(std::vector<std::byte>& memory) : memory_(&memory) {}
  ~StateWriter();
  StateWriter(const StateWriter&) = delete;
  StateWriter& operator=(const StateWriter&) = delete;

  template <class T>
  void put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    write_bytes(&value, sizeof(T));
  }
  template <class T>
  void put_span(std::span<const T> values) {
    static_assert(std::is_trivially_copyable_v<T>);
    put<uint64_t>(values.size());
    write_bytes(values.data(), values.size_bytes());
  }
  template <class T>
  void put_vector(const std::vector<T>& values) {
    put_span(std::span<const T>(values));
  }
  void put_string(const std::string& s);
  /// Marks the start of a part; StateReader::section checks it.
  void section(uint32_t tag) { put(tag); }

  /// Writes the hash trailer, flushes and fsyncs. EnvironmentError on any failed write.
  void finish();
  uint64_t bytes_written() const { return bytes_; }

 private:
  void write_bytes(const void* data, size_t size);
  void flush_block();

  std::string path_;
  std::FILE* file_ = nullptr;
  std::vector<std::byte>* memory_ = nullptr;  // in memory: the bytes go here
  std::vector<unsigned char> buffer_;  // the block being filled
  uint64_t bytes_ = 0;
  uint64_t hash_ = 0;
  bool failed_ = false;
};

class StateReader {
 public:
  /// Opens `path`, checks its trailer hash. InputError naming the file when it is missing,
  /// short or damaged.
  explicit StateReader(std::string path);
  /// Reads `memory` (which outlives the reader) instead, a StateWriter's in-memory bytes;
  /// failures name `what` (a literal: no allocation per message) in place of a file.
  StateReader(std::span<const std::byte> memory, const char* what);
  ~StateReader();
  StateReader(const StateReader&) = delete;
  StateReader& operator=(const StateReader&) = delete;

  template <class T>
  T get() {
    static_assert(std::is_trivially_copyable_v<T>);
    T value;
    read_bytes(&value, sizeof(T));
    return value;
  }
  /// Reads a span written by put_span into `out`, which must have its length.
  template <class T>
  void get_span(std::span<T> out) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto n = get<uint64_t>();
    if (n != out.size()) fail(fmt_count("values", n, out.size()));
    read_bytes(out.data(), out.size_bytes());
  }
  template <class T>
  std::vector<T> get_vector() {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto n = get<uint64_t>();
    check_remaining(n, sizeof(T));
    std::vector<T> out(n);
    read_bytes(out.data(), n * sizeof(T));
    return out;
  }
  std::string get_string();
  /// Checks the tag StateWriter::section wrote here.
  void section(uint32_t tag);
  /// Checks that everything but the trailer was read.
  void finish();

  const std::string& path() const { return path_; }
  /// InputError "PATH: damaged checkpoint at byte N: what".
  [[noreturn]] void fail(const std::string& what) const;

 private:
  void read_bytes(void* out, size_t size);
  bool fill_block();
  void check_remaining(uint64_t count, size_t size) const;
  static std::string fmt_count(const char* what, uint64_t got, uint64_t expected);

  std::string path_;
  std::FILE* file_ = nullptr;
  const std::byte* memory_ = nullptr;  // in memory: the bytes read
  const char* what_ = nullptr;         // in memory: what they are, for failures
  std::vector<unsigned char> buffer_;  // the block being read
  size_t buffer_pos_ = 0;
  uint64_t buffered_end_ = 0;  // payload bytes read from the file so far
  uint64_t offset_ = 0;        // payload bytes handed out so far
  uint64_t payload_ = 0;       // bytes before the trailer
  uint64_t hash_ = 0;
};

}  // namespace dlsim
