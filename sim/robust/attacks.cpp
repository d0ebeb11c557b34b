// The attack constructions. Sums are taken in double, in the order the vectors are given.
#include "sim/robust/attacks.hpp"

#include <cmath>

#include "sim/core/error.hpp"

namespace dlsim {

namespace {

void check_models(std::span<const std::span<const float>> models, std::span<const float> out) {
  DLSIM_CHECK(!models.empty(), "an attack needs at least one honest model");
  for (const std::span<const float> m : models)
    DLSIM_CHECK(m.size() == out.size(), "a model of {} floats, out has {}", m.size(), out.size());
}

double mean_at(std::span<const std::span<const float>> models, size_t e) {
  double sum = 0.0;
  for (const std::span<const float> m : models) sum += static_cast<double>(m[e]);
  return sum / static_cast<double>(models.size());
}

}  // namespace

double inverse_normal_cdf(double p) {
  DLSIM_CHECK(p > 0.0 && p < 1.0, "inverse_normal_cdf: p = {} outside (0, 1)", p);
  // Phi(z) = erfc(-z / sqrt 2) / 2 is increasing; 200 halvings of [-40, 40] reach the spacing
  // of doubles near the root. Slow but called once per run, and the same on every machine up to
  // erfc's last bit.
  double lo = -40.0, hi = 40.0;
  for (int i = 0; i < 200 && hi - lo > 0.0; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (mid == lo || mid == hi) break;
    if (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p)
      lo = mid;
    else
      hi = mid;
  }
  return 0.5 * (lo + hi);
}

std::optional<double> alie_z(uint32_t n, uint32_t f) {
  if (f >= n) return std::nullopt;
  const int64_t s = static_cast<int64_t>(n) / 2 + 1 - static_cast<int64_t>(f);
  const double p =
      static_cast<double>(static_cast<int64_t>(n - f) - s) / static_cast<double>(n - f);
  if (!(p > 0.0 && p < 1.0)) return std::nullopt;
  return inverse_normal_cdf(p);
}

void alie(std::span<const std::span<const float>> honest, double z, std::span<float> out) {
  check_models(honest, out);
  const double count = static_cast<double>(honest.size());
  for (size_t e = 0; e < out.size(); ++e) {
    const double mu = mean_at(honest, e);
    double squares = 0.0;
    for (const std::span<const float> m : honest) {
      const double d = static_cast<double>(m[e]) - mu;
      squares += d * d;
    }
    const double sigma = honest.size() > 1 ? std::sqrt(squares / (count - 1.0)) : 0.0;
    out[e] = static_cast<float>(mu - z * sigma);
  }
}

void ipm(std::span<const std::span<const float>> honest, double epsilon, std::span<float> out) {
  check_models(honest, out);
  for (size_t e = 0; e < out.size(); ++e)
    out[e] = static_cast<float>(-epsilon * mean_at(honest, e));
}

void sign_flip(std::span<const float> own, std::span<float> out) {
  DLSIM_CHECK(own.size() == out.size(), "own {} floats, out {}", own.size(), out.size());
  for (size_t e = 0; e < out.size(); ++e) out[e] = -own[e];
}

void gaussian(std::span<const float> own, double sigma, RandomStream& random,
              std::span<float> out) {
  DLSIM_CHECK(own.size() == out.size(), "own {} floats, out {}", own.size(), out.size());
  DLSIM_CHECK(sigma >= 0.0, "gaussian attack: sigma {} < 0", sigma);
  for (size_t e = 0; e < out.size(); ++e)
    out[e] = static_cast<float>(static_cast<double>(own[e]) + sigma * random.normal());
}

void dissensus(std::span<const float> target, std::span<const std::span<const float>> honest,
               std::span<const double> honest_weights, double byzantine_weight, double epsilon,
               std::span<float> out) {
  DLSIM_CHECK(target.size() == out.size(), "target {} floats, out {}", target.size(), out.size());
  DLSIM_CHECK(honest.size() == honest_weights.size(), "{} honest models, {} weights", honest.size(),
              honest_weights.size());
  DLSIM_CHECK(byzantine_weight > 0.0, "dissensus: Byzantine weight {} must be > 0",
              byzantine_weight);
  for (const std::span<const float> m : honest)
    DLSIM_CHECK(m.size() == out.size(), "a model of {} floats, out has {}", m.size(), out.size());
  for (size_t e = 0; e < out.size(); ++e) {
    const double xt = static_cast<double>(target[e]);
    double pull = 0.0;  // sum_j W_tj (x_j - x_t), neighbours in order
    for (size_t j = 0; j < honest.size(); ++j)
      pull += honest_weights[j] * (static_cast<double>(honest[j][e]) - xt);
    out[e] = static_cast<float>(xt - epsilon * pull / byzantine_weight);
  }
}

}  // namespace dlsim
