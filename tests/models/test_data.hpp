// Small synthetic datasets for the model tests, drawn from a RandomStream.
#pragma once

#include <algorithm>
#include <vector>

#include "models/data/dataset.hpp"
#include "sim/core/random.hpp"

namespace dlsim::models::testing {

/// `count` samples of `classes` Gaussian clusters in `dim` >= classes dimensions: class k is
/// centred at 4 * e_k with unit noise (nearest-centre accuracy above 99 %). Labels cycle 0..k-1.
inline Dataset gaussian_clusters(uint32_t classes, uint32_t dim, size_t count, RandomStream& rng) {
  Dataset d;
  d.name = "clusters";
  d.channels = 1;
  d.height = 1;
  d.width = dim;
  d.num_classes = classes;
  d.features.resize(dim, static_cast<Eigen::Index>(count));
  for (size_t s = 0; s < count; ++s) {
    const auto label = static_cast<uint8_t>(s % classes);
    d.labels.push_back(label);
    for (uint32_t i = 0; i < dim; ++i)
      d.features(i, static_cast<Eigen::Index>(s)) =
          static_cast<float>(rng.normal() + (i == label ? 4.0 : 0.0));
  }
  return d;
}

/// 1 x 6 x 6 images of noise N(0, 0.3^2) with a 2 x 2 blob of +1 at a random place inside one
/// quadrant; the label is the quadrant (0 top-left, 1 top-right, 2 bottom-left, 3 bottom-right).
inline Dataset quadrant_blobs(size_t count, RandomStream& rng) {
  Dataset d;
  d.name = "blobs";
  d.channels = 1;
  d.height = 6;
  d.width = 6;
  d.num_classes = 4;
  d.features.resize(36, static_cast<Eigen::Index>(count));
  for (size_t s = 0; s < count; ++s) {
    const auto label = static_cast<uint8_t>(s % 4);
    d.labels.push_back(label);
    auto col = d.features.col(static_cast<Eigen::Index>(s));
    for (Eigen::Index i = 0; i < 36; ++i) col[i] = static_cast<float>(0.3 * rng.normal());
    const auto top = static_cast<Eigen::Index>((label / 2) * 3 + rng.below(2));
    const auto left = static_cast<Eigen::Index>((label % 2) * 3 + rng.below(2));
    for (Eigen::Index r = top; r < top + 2; ++r)
      for (Eigen::Index c = left; c < left + 2; ++c) col[r * 6 + c] += 1.0f;
  }
  return d;
}

/// Images like normalised MNIST digits: each of `dim` pixels is lit (background + U(0, 3)) with
/// probability `lit`, else exactly the background (the normalised black pixel, -0.4242); the
/// label is the pixel band (of `classes` equal bands) with the most light.
inline Dataset sparse_images(uint32_t classes, uint32_t dim, size_t count, double lit,
                             RandomStream& rng) {
  Dataset d;
  d.name = "sparse";
  d.width = dim;
  d.num_classes = classes;
  d.background = -0.1307f / 0.3081f;
  d.features.resize(dim, static_cast<Eigen::Index>(count));
  for (size_t s = 0; s < count; ++s) {
    std::vector<double> light(classes, 0.0);
    for (uint32_t i = 0; i < dim; ++i) {
      const double v = rng.uniform() < lit ? rng.uniform(0.0, 3.0) : 0.0;
      light[i * classes / dim] += v;
      d.features(i, static_cast<Eigen::Index>(s)) = *d.background + static_cast<float>(v);
    }
    d.labels.push_back(static_cast<uint8_t>(
        std::max_element(light.begin(), light.end()) - light.begin()));
  }
  return d;
}

}  // namespace dlsim::models::testing
