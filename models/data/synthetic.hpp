// Datasets generated in-process from a seed, for tests and for scale runs without files.
//  - Gaussian clusters: class c has a centre at distance `separation` from the origin in a random
//    direction (RandomStream(seed, "synthetic-centres", 0)); a sample is centre + noise * N(0, I).
//  - Random teacher: x ~ N(0, I); label = argmax(W2 tanh(W1 x) + b2) for a fixed random net
//    (RandomStream(seed, "synthetic-teacher", 0)): W1 ~ N(0, 1/dim), W2 ~ N(0, 1/hidden), and b2 =
//    minus the mean train logit of each class, which roughly balances the classes.
// Sample i of either split has label i mod num_classes for clusters (so every prefix is balanced);
// inputs come from RandomStream(seed, "synthetic-train" / "synthetic-test", 0).
#pragma once

#include <cstdint>

#include "models/data/dataset.hpp"

namespace dlsim::models {

struct SyntheticSpec {
  uint32_t num_classes = 10;
  uint32_t channels = 1;  // sample shape; features per sample = channels * height * width
  uint32_t height = 1;
  uint32_t width = 32;
  uint32_t train_count = 6000;
  uint32_t test_count = 1000;
  double separation = 4.0;       // clusters: distance of each class centre from the origin
  double noise = 1.0;            // clusters: std of the isotropic noise around a centre
  uint32_t teacher_hidden = 64;  // teacher: width of the hidden tanh layer
};

/// Throws InputError (naming the field) on a spec that cannot generate a dataset.
void validate_synthetic_spec(const SyntheticSpec& spec);

/// Gaussian clusters; the same (spec, seed) gives bit-identical data. Not normalised.
DatasetSplit make_gaussian_clusters(const SyntheticSpec& spec, uint64_t seed);
/// Labels of a random one-hidden-layer teacher on Gaussian inputs. Not normalised.
DatasetSplit make_teacher_dataset(const SyntheticSpec& spec, uint64_t seed);

}  // namespace dlsim::models
