// IDX parsing over the whole (decompressed) stream, so every check can name its byte offset and a
// corrupt header is caught before the pixel matrix is allocated.
#include "models/data/idx_reader.hpp"

#include <array>
#include <span>

#include "models/data/file_bytes.hpp"
#include "models/data/huge_pages.hpp"
#include "sim/core/error.hpp"

namespace dlsim::models {
namespace {

constexpr uint8_t kUnsignedByteType = 0x08;

struct IdxHeader {
  std::vector<uint32_t> dims;
  size_t data_offset = 0;
};

uint32_t big_endian_u32(std::span<const uint8_t> bytes, size_t offset) {
  return (uint32_t{bytes[offset]} << 24) | (uint32_t{bytes[offset + 1]} << 16) |
         (uint32_t{bytes[offset + 2]} << 8) | uint32_t{bytes[offset + 3]};
}

[[noreturn]] void fail(const std::filesystem::path& path, size_t offset, const std::string& what) {
  throw InputError(fmt::format("{}: byte {}: {}", path.string(), offset, what));
}

// Checks the magic (00 00 08 rank) and reads the dimensions; offsets point at the first bad byte.
IdxHeader parse_header(const std::filesystem::path& path, std::span<const uint8_t> bytes,
                       uint8_t rank, const char* kind) {
  const uint32_t expected = (uint32_t{kUnsignedByteType} << 8) | rank;
  if (bytes.size() < 4) fail(path, bytes.size(), fmt::format("truncated: no IDX magic ({})", kind));
  const uint32_t magic = big_endian_u32(bytes, 0);
  if (magic != expected) {
    const size_t at = bytes[0] != 0 ? 0 : bytes[1] != 0 ? 1 : bytes[2] != kUnsignedByteType ? 2 : 3;
    const std::string type_note =
        at == 2 ? fmt::format(" (data type 0x{:02x} is not unsigned byte 0x08)", bytes[2]) : "";
    fail(path, at,
         fmt::format("expected magic 0x{:08x} ({}), got 0x{:08x}{}", expected, kind, magic,
                     type_note));
  }
  IdxHeader header;
  header.data_offset = 4 + 4 * size_t{rank};
  if (bytes.size() < header.data_offset) {
    fail(path, bytes.size(),
         fmt::format("truncated header: {} dimensions need {} bytes", rank, header.data_offset));
  }
  for (size_t d = 0; d < rank; ++d) {
    header.dims.push_back(big_endian_u32(bytes, 4 + 4 * d));
    if (header.dims.back() == 0) fail(path, 4 + 4 * d, fmt::format("dimension {} is zero", d));
  }
  return header;
}

// The payload must be exactly prod(dims) bytes: no missing and no trailing bytes.
void check_length(const std::filesystem::path& path, size_t file_bytes, const IdxHeader& header) {
  uint64_t expected = 1;
  std::string shape;
  for (uint32_t d : header.dims) {
    expected *= d;
    shape += fmt::format("{}{}", shape.empty() ? "" : "x", d);
    if (expected > (uint64_t{1} << 40))
      fail(path, 4, fmt::format("implausible dimensions {}", shape));
  }
  const uint64_t end = header.data_offset + expected;
  if (file_bytes < end) {
    fail(path, file_bytes,
         fmt::format("truncated: dimensions {} need {} data bytes ending at byte {}, the file "
                     "ends here",
                     shape, expected, end));
  }
  if (file_bytes > end) {
    fail(path, end,
         fmt::format("{} trailing bytes after the {} data bytes of dimensions {}", file_bytes - end,
                     expected, shape));
  }
}

}  // namespace

IdxImages read_idx_images(const std::filesystem::path& path) {
  std::vector<uint8_t> bytes = read_file_bytes(path);
  const IdxHeader header = parse_header(path, bytes, 3, "images");
  check_length(path, bytes.size(), header);
  return {header.dims[0], header.dims[1], header.dims[2], std::move(bytes), header.data_offset};
}

std::vector<uint8_t> read_idx_labels(const std::filesystem::path& path, uint32_t num_classes) {
  std::vector<uint8_t> bytes = read_file_bytes(path);
  const IdxHeader header = parse_header(path, bytes, 1, "labels");
  check_length(path, bytes.size(), header);
  for (size_t i = header.data_offset; i < bytes.size(); ++i) {
    if (bytes[i] >= num_classes) {
      fail(path, i,
           fmt::format("label {} of sample {} is out of range (must be < {})", bytes[i],
                       i - header.data_offset, num_classes));
    }
  }
  bytes.erase(bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(header.data_offset));
  return bytes;
}

Dataset read_idx_dataset(const std::filesystem::path& images_path,
                         const std::filesystem::path& labels_path, std::string name) {
  const IdxImages images = read_idx_images(images_path);
  Dataset data;
  data.background = 0.0f;  // black
  data.labels = read_idx_labels(labels_path, data.num_classes);
  if (data.labels.size() != images.count) {
    fail(labels_path, 4,
         fmt::format("{} labels, but {} holds {} images", data.labels.size(), images_path.string(),
                     images.count));
  }
  data.name = std::move(name);
  data.height = images.rows;
  data.width = images.cols;
  data.features = allocate_features(static_cast<Eigen::Index>(data.sample_dim()),
                                    static_cast<Eigen::Index>(images.count));
  // Column-major features: sample i's pixels are contiguous, in the file's row-major order. A
  // plain loop (auto-vectorised) is several times faster than Eigen's uint8 -> float cast.
  const std::span<const uint8_t> pixels = images.pixels();
  float* out = data.features.data();
  for (size_t k = 0; k < pixels.size(); ++k)
    out[k] = static_cast<float>(pixels[k]) * (1.0f / 255.0f);
  return data;
}

}  // namespace dlsim::models
