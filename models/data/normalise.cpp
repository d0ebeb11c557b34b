// Two passes (mean, then squared deviations), as one-pass sums of squares lose digits. Each
// sample's sum is taken in float (Eigen vectorises it; a sample has at most a few thousand
// features) and the per-sample sums are added in double, in sample order.
#include "models/data/normalise.hpp"

#include <cmath>

#include "sim/core/error.hpp"

namespace dlsim::models {

Normalisation compute_normalisation(const Dataset& train) {
  const auto count = static_cast<double>(train.features.size());
  if (count == 0.0)
    throw InputError(fmt::format("{}: cannot normalise an empty train set", train.name));
  const double mean = train.features.colwise().sum().cast<double>().sum() / count;
  const auto mean_f = static_cast<float>(mean);
  const double variance =
      (train.features.array() - mean_f).square().colwise().sum().cast<double>().sum() / count;
  if (!(variance > 0.0)) {
    throw InputError(
        fmt::format("{}: cannot normalise: every train feature equals {}", train.name, mean));
  }
  return {static_cast<float>(mean), static_cast<float>(std::sqrt(variance))};
}

void apply_normalisation(Dataset& data, const Normalisation& n) {
  data.features = (data.features.array() - n.mean) / n.stddev;
  if (data.background)  // the same float as a mapped pixel
    data.background = (*data.background - n.mean) / n.stddev;
}

Normalisation normalise_split(DatasetSplit& split) {
  const Normalisation n = compute_normalisation(split.train);
  apply_normalisation(split.train, n);
  apply_normalisation(split.test, n);
  return n;
}

}  // namespace dlsim::models
