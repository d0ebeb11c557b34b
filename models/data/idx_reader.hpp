// The IDX format of MNIST and Fashion-MNIST (plain or .gz): a big-endian header (magic 00 00 08
// rank, then one uint32 per dimension) followed by exactly prod(dims) unsigned bytes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "models/data/dataset.hpp"

namespace dlsim::models {

/// Images of an idx3 file: count x rows x cols bytes, row-major, one image after another.
struct IdxImages {
  uint32_t count = 0;
  uint32_t rows = 0;
  uint32_t cols = 0;
  std::vector<uint8_t> file;  // the whole uncompressed file, header included
  size_t pixel_offset = 0;    // where the count*rows*cols pixel bytes (0..255) start in `file`

  /// The pixel bytes (a view into `file`).
  std::span<const uint8_t> pixels() const {
    return std::span<const uint8_t>(file).subspan(pixel_offset);
  }
};

/// Reads an images file (magic 0x00000803). Throws InputError naming the file and byte offset.
IdxImages read_idx_images(const std::filesystem::path& path);
/// Reads a labels file (magic 0x00000801); every label must be < num_classes.
std::vector<uint8_t> read_idx_labels(const std::filesystem::path& path, uint32_t num_classes = 10);

/// Pairs an images and a labels file into a Dataset of 1 x rows x cols samples with pixels
/// scaled to [0, 1] (byte / 255). The two files must hold the same number of samples.
Dataset read_idx_dataset(const std::filesystem::path& images, const std::filesystem::path& labels,
                         std::string name);

}  // namespace dlsim::models
