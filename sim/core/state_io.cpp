#include "sim/core/state_io.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "sim/core/error.hpp"
#include "sim/core/random.hpp"

namespace dlsim {
namespace {

// Both sides hash the payload in blocks of this size (the last one shorter), whatever the sizes
// of the values written, and stream through a buffer of it.
constexpr size_t kBlock = size_t{1} << 16;
constexpr uint64_t kHashSeed = 0x636b70745f686173ull;

uint64_t hash_block(uint64_t h, const unsigned char* data, size_t size) {
  uint64_t x = size;
  size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    uint64_t w;
    std::memcpy(&w, data + i, 8);
    x = mix64(x ^ w);
  }
  uint64_t tail = 0;
  std::memcpy(&tail, data + i, size - i);
  return mix64(h ^ mix64(x ^ tail));
}

}  // namespace

// --- StateWriter ---

StateWriter::StateWriter(std::string path) : path_(std::move(path)), hash_(kHashSeed) {
  file_ = std::fopen(path_.c_str(), "wb");
  if (file_ == nullptr)
    throw EnvironmentError(
        fmt::format("{}: cannot write a checkpoint: {}", path_, std::strerror(errno)));
  buffer_.reserve(kBlock);
}

StateWriter::~StateWriter() {
  if (file_ != nullptr) std::fclose(file_);
}

void StateWriter::flush_block() {
  if (buffer_.empty()) return;
  hash_ = hash_block(hash_, buffer_.data(), buffer_.size());
  if (std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) failed_ = true;
  buffer_.clear();
}

void StateWriter::write_bytes(const void* data, size_t size) {
  const auto* p = static_cast<const unsigned char*>(data);
  bytes_ += size;
  if (memory_ != nullptr) {
    const auto* b = reinterpret_cast<const std::byte*>(p);
    memory_->insert(memory_->end(), b, b + size);
    return;
  }
  while (size > 0) {
    const size_t n = std::min(size, kBlock - buffer_.size());
    buffer_.insert(buffer_.end(), p, p + n);
    p += n;
    size -= n;
    if (buffer_.size() == kBlock) flush_block();
  }
}

void StateWriter::put_string(const std::string& s) {
  put<uint64_t>(s.size());
  write_bytes(s.data(), s.size());
}

void StateWriter::finish() {
  if (memory_ != nullptr) return;
  flush_block();
  if (std::fwrite(&hash_, sizeof hash_, 1, file_) != 1) failed_ = true;
  if (std::fflush(file_) != 0 || ::fsync(fileno(file_)) != 0) failed_ = true;
  const int error = errno;
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  if (failed_ || !closed)
    throw EnvironmentError(fmt::format("{}: cannot write a checkpoint: {}", path_,
                                       std::strerror(error != 0 ? error : EIO)));
}

// --- StateReader ---

StateReader::StateReader(std::string path) : path_(std::move(path)) {
  file_ = std::fopen(path_.c_str(), "rb");
  if (file_ == nullptr)
    throw InputError(
        fmt::format("{}: cannot read the checkpoint: {}", path_, std::strerror(errno)));
  if (std::fseek(file_, 0, SEEK_END) != 0) fail("cannot seek");
  const long size = std::ftell(file_);
  if (size < static_cast<long>(sizeof(uint64_t))) fail("shorter than its trailer");
  payload_ = static_cast<uint64_t>(size) - sizeof(uint64_t);
  std::rewind(file_);
  hash_ = kHashSeed;
}

StateReader::StateReader(std::span<const std::byte> memory, const char* what)
    : memory_(memory.data()), what_(what), payload_(memory.size()) {}

StateReader::~StateReader() {
  if (file_ != nullptr) std::fclose(file_);
}

void StateReader::fail(const std::string& what) const {
  if (memory_ != nullptr)  // what another rank wrote: a bug, not a damaged file
    DLSIM_CHECK(false, "{}: cannot be read at byte {}: {}", what_, offset_, what);
  throw InputError(fmt::format("{}: damaged checkpoint at byte {}: {}", path_, offset_, what));
}

std::string StateReader::fmt_count(const char* what, uint64_t got, uint64_t expected) {
  return fmt::format("{} {} where this run has {}", got, what, expected);
}

void StateReader::check_remaining(uint64_t count, size_t size) const {
  if (size != 0 && count > (payload_ - offset_) / size)
    fail(fmt::format("a list of {} values runs past the end", count));
}

bool StateReader::fill_block() {
  const uint64_t left = payload_ - buffered_end_;
  if (left == 0) return false;
  const size_t n = static_cast<size_t>(std::min<uint64_t>(left, kBlock));
  buffer_.resize(n);
  if (std::fread(buffer_.data(), 1, n, file_) != n) fail("cannot read");
  hash_ = hash_block(hash_, buffer_.data(), n);
  buffered_end_ += n;
  buffer_pos_ = 0;
  return true;
}

void StateReader::read_bytes(void* out, size_t size) {
  auto* p = static_cast<unsigned char*>(out);
  if (size > payload_ - offset_) fail("ends early");
  if (size == 0) return;  // `out` may be an empty vector's null data(), which memcpy must not get
  if (memory_ != nullptr) {
    std::memcpy(p, memory_ + offset_, size);
    offset_ += size;
    return;
  }
  while (size > 0) {
    if (buffer_pos_ == buffer_.size() && !fill_block()) fail("ends early");
    const size_t n = std::min(size, buffer_.size() - buffer_pos_);
    std::memcpy(p, buffer_.data() + buffer_pos_, n);
    buffer_pos_ += n;
    offset_ += n;
    p += n;
    size -= n;
  }
}

std::string StateReader::get_string() {
  const auto n = get<uint64_t>();
  check_remaining(n, 1);
  std::string s(n, '\0');
  read_bytes(s.data(), n);
  return s;
}

void StateReader::section(uint32_t tag) {
  const auto got = get<uint32_t>();
  if (got != tag) fail(fmt::format("expected section {:#x}, found {:#x}", tag, got));
}

void StateReader::finish() {
  if (offset_ != payload_) fail(fmt::format("{} bytes left unread", payload_ - offset_));
  if (memory_ != nullptr) return;
  uint64_t stored = 0;
  if (std::fread(&stored, sizeof stored, 1, file_) != 1) fail("cannot read the trailer");
  if (stored != hash_) fail("its hash does not match its contents");
}

}  // namespace dlsim
