// Helpers for the data tests: fresh temporary folders under the build tree, file writers (plain
// and gzip) and IDX byte builders, and the message of an expected InputError.
#pragma once

#include <zlib.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/error.hpp"

namespace dlsim::models::testing {

/// An empty folder DLSIM_BINARY_DIR/test-tmp/data/<name>, emptied if it exists.
inline std::filesystem::path fresh_dir(std::string_view name) {
  const std::filesystem::path dir =
      std::filesystem::path(DLSIM_BINARY_DIR) / "test-tmp" / "data" / std::string(name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline void write_file(const std::filesystem::path& path, std::string_view bytes) {
  std::ofstream(path, std::ios::binary)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

inline void write_file(const std::filesystem::path& path, const std::vector<uint8_t>& bytes) {
  write_file(path, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

/// The gzip encoding of `bytes` (via zlib's gz* writer into a temporary file).
inline std::vector<uint8_t> gzip_bytes(const std::vector<uint8_t>& bytes,
                                       const std::filesystem::path& scratch) {
  gzFile gz = gzopen(scratch.c_str(), "wb9");
  gzwrite(gz, bytes.data(), static_cast<unsigned>(bytes.size()));
  gzclose(gz);
  std::ifstream in(scratch, std::ios::binary);
  std::vector<uint8_t> out((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::filesystem::remove(scratch);
  return out;
}

inline void put_u32(std::vector<uint8_t>& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<uint8_t>(v >> shift));
}

/// An idx3 images file: `count` images of rows x cols; pixel k of the stream is (7*k) mod 256.
inline std::vector<uint8_t> idx_images(uint32_t count, uint32_t rows, uint32_t cols) {
  std::vector<uint8_t> out = {0, 0, 8, 3};
  put_u32(out, count);
  put_u32(out, rows);
  put_u32(out, cols);
  for (uint32_t k = 0; k < count * rows * cols; ++k) out.push_back(static_cast<uint8_t>(7 * k));
  return out;
}

/// An idx1 labels file holding `labels`.
inline std::vector<uint8_t> idx_labels(const std::vector<uint8_t>& labels) {
  std::vector<uint8_t> out = {0, 0, 8, 1};
  put_u32(out, static_cast<uint32_t>(labels.size()));
  out.insert(out.end(), labels.begin(), labels.end());
  return out;
}

/// what() of the InputError `run` throws, or a note saying it threw none.
inline std::string input_error(const std::function<void()>& run) {
  try {
    run();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no InputError)";
}

}  // namespace dlsim::models::testing
