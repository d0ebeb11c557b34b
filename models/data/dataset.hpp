// A labelled dataset held in memory once and shared read-only by every agent; agents hold only
// index lists (shards) into it.
#pragma once

#include <Eigen/Core>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dlsim::models {

/// Samples are columns: features is (channels*height*width, count), float, already normalised.
/// Within a column the layout is channel-major, then row-major: feature (c, y, x) is at row
/// c*height*width + y*width + x, so a column maps onto a (C, H, W) tensor with no copy.
struct Dataset {
  std::string name;
  Eigen::MatrixXf features;
  std::vector<uint8_t> labels;  // one per column, < num_classes
  uint32_t channels = 1;
  uint32_t height = 1;
  uint32_t width = 1;
  uint32_t num_classes = 10;
  /// The value of an absent feature (a black pixel) in image data, mapped as the features are
  /// when they are normalised; none for data without one (synthetic). Where most features take
  /// it, the input layer runs sparse products.
  std::optional<float> background;

  size_t size() const { return labels.size(); }
  size_t sample_dim() const { return static_cast<size_t>(channels) * height * width; }
};

/// The train and test parts of one dataset.
struct DatasetSplit {
  Dataset train;
  Dataset test;
};

}  // namespace dlsim::models
