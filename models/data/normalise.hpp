// Per-dataset normalisation: one scalar mean and standard deviation over all features of the train
// split (the usual MNIST convention, 0.1307 / 0.3081 on [0, 1] pixels), applied in place to train
// and test alike so that the test set never informs the statistics.
#pragma once

#include "models/data/dataset.hpp"

namespace dlsim::models {

/// The affine map applied to every feature, x' = (x - mean) / stddev; identity by default.
struct Normalisation {
  float mean = 0.0f;
  float stddev = 1.0f;
};

/// Mean and population standard deviation over every feature of every sample (double sums).
/// Throws InputError if the dataset is empty or all its features are equal (std 0).
Normalisation compute_normalisation(const Dataset& train);
/// x <- (x - n.mean) / n.stddev for every feature, in place.
void apply_normalisation(Dataset& data, const Normalisation& n);
/// Computes on split.train and applies it to train and test; returns what it applied.
Normalisation normalise_split(DatasetSplit& split);

}  // namespace dlsim::models
