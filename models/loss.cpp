#include "models/loss.hpp"

#include <cmath>

#include "sim/core/error.hpp"

namespace dlsim::models {

double softmax_cross_entropy(Eigen::Map<const Eigen::MatrixXf> logits,
                             std::span<const uint8_t> labels,
                             Eigen::Map<Eigen::MatrixXf>* dlogits) {
  const Eigen::Index classes = logits.rows(), n = logits.cols();
  DLSIM_CHECK(static_cast<Eigen::Index>(labels.size()) == n, "{} labels for {} samples",
              labels.size(), n);
  const float inv_n = 1.0f / static_cast<float>(n);
  double total = 0.0;
  for (Eigen::Index s = 0; s < n; ++s) {
    const float* z = logits.col(s).data();
    const Eigen::Index y = labels[static_cast<size_t>(s)];
    DLSIM_CHECK(y < classes, "label {} of sample {} is not below {} classes", y, s, classes);
    // log sum_c exp(z_c) = m + log sum_c exp(z_c - m) with m = max z: no overflow, and the sum
    // is at least 1, so no log(0).
    float m = z[0];
    for (Eigen::Index c = 1; c < classes; ++c) m = std::max(m, z[c]);
    double sum = 0.0;
    for (Eigen::Index c = 0; c < classes; ++c) sum += std::exp(static_cast<double>(z[c] - m));
    const double lse = static_cast<double>(m) + std::log(sum);
    total += lse - static_cast<double>(z[y]);
    if (dlogits != nullptr) {
      float* g = dlogits->col(s).data();
      for (Eigen::Index c = 0; c < classes; ++c)
        g[c] = static_cast<float>(std::exp(static_cast<double>(z[c]) - lse)) * inv_n;
      g[y] -= inv_n;
    }
  }
  return total;
}

Eigen::Index predicted_class(const Eigen::Map<const Eigen::MatrixXf>& logits, Eigen::Index s) {
  Eigen::Index best = 0;
  for (Eigen::Index c = 1; c < logits.rows(); ++c)
    if (logits(c, s) > logits(best, s)) best = c;
  return best;
}

}  // namespace dlsim::models
