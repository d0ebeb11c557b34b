// Plain files in one read; gzip through zlib's inflate straight into the output buffer, which
// also tells exactly how many uncompressed bytes came out before a damaged spot (gzread does not).
#include "models/data/file_bytes.hpp"

#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <new>
#include <string>

#include "models/data/huge_pages.hpp"
#include "sim/core/error.hpp"

namespace dlsim::models {
namespace {

constexpr size_t kChunkBytes = size_t{1} << 20;

std::vector<uint8_t> read_plain(const std::filesystem::path& path) {
  std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) throw InputError(fmt::format("{}: cannot open the file", path.string()));
  std::vector<uint8_t> bytes;
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec) reserve_advised(bytes, static_cast<size_t>(size) + kChunkBytes);
  size_t used = 0;
  for (;;) {
    bytes.resize(used + kChunkBytes);
    const size_t got = std::fread(bytes.data() + used, 1, kChunkBytes, file.get());
    used += got;
    if (got < kChunkBytes) break;
  }
  if (std::ferror(file.get())) {
    throw InputError(fmt::format("{}: byte {}: read error", path.string(), used));
  }
  bytes.resize(used);
  return bytes;
}

bool has_gzip_magic(const uint8_t* p, size_t n) { return n >= 2 && p[0] == 0x1f && p[1] == 0x8b; }

// A first guess at the output size: the length the gzip trailer announces (ISIZE, mod 2^32), but
// at most 16 times the input, so a damaged trailer cannot make us allocate gigabytes.
size_t output_size_hint(const std::vector<uint8_t>& gz) {
  const size_t n = gz.size();
  if (n < 18) return 64;
  const size_t announced = size_t{gz[n - 4]} | size_t{gz[n - 3]} << 8 | size_t{gz[n - 2]} << 16 |
                           size_t{gz[n - 1]} << 24;
  return std::min(announced, 16 * n) + 1;
}

class Inflater {
 public:
  explicit Inflater(const std::filesystem::path& path) : path_(path) {
    if (inflateInit2(&strm_, 16 + MAX_WBITS) != Z_OK) throw std::bad_alloc();
  }
  ~Inflater() { inflateEnd(&strm_); }
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;

  std::vector<uint8_t> run(std::vector<uint8_t>& gz) {
    std::vector<uint8_t> out;
    reserve_advised(out, output_size_hint(gz));
    out.resize(out.capacity());
    strm_.next_in = gz.data();
    strm_.avail_in = static_cast<uInt>(gz.size());
    size_t done = 0;  // output of finished members
    for (;;) {
      if (done + strm_.total_out == out.size()) out.resize(out.size() * 2);
      strm_.next_out = out.data() + done + strm_.total_out;
      strm_.avail_out =
          static_cast<uInt>(std::min<size_t>(out.size() - done - strm_.total_out, size_t{1} << 30));
      const int ret = inflate(&strm_, Z_NO_FLUSH);
      if (ret == Z_STREAM_END) {
        done += strm_.total_out;
        if (strm_.avail_in == 0) break;
        if (!has_gzip_magic(strm_.next_in, strm_.avail_in))
          fail(done, "trailing bytes after the gzip stream");
        inflateReset(&strm_);  // concatenated gzip members, as gzip(1) accepts
      } else if (ret == Z_MEM_ERROR) {
        throw std::bad_alloc();
      } else if (ret == Z_BUF_ERROR) {  // no progress with room to write: the input ran out
        fail(done + strm_.total_out, "truncated gzip stream (unexpected end of file)");
      } else if (ret != Z_OK) {
        fail(done + strm_.total_out,
             fmt::format("corrupt gzip stream ({})", strm_.msg ? strm_.msg : "zlib error"));
      }
    }
    out.resize(done);
    return out;
  }

 private:
  [[noreturn]] void fail(size_t offset, const std::string& what) const {
    throw InputError(fmt::format("{}: byte {} (uncompressed): {}", path_.string(), offset, what));
  }

  const std::filesystem::path& path_;
  z_stream strm_{};
};

std::vector<uint8_t> read_gzip(const std::filesystem::path& path) {
  std::vector<uint8_t> gz = read_plain(path);
  if (!has_gzip_magic(gz.data(), gz.size())) {
    throw InputError(fmt::format("{}: byte 0: not a gzip stream (no 1f 8b header)", path.string()));
  }
  DLSIM_CHECK(gz.size() < (size_t{1} << 32), "{}: compressed files over 4 GiB are not supported",
              path.string());
  return Inflater(path).run(gz);
}

}  // namespace

std::vector<uint8_t> read_file_bytes(const std::filesystem::path& path) {
  return path.extension() == ".gz" ? read_gzip(path) : read_plain(path);
}

}  // namespace dlsim::models
