// What a Byzantine agent sends to an honest target in place of its model: the crafted vectors of
// the attacks He, Karimireddy & Jaggi (2022) compare. Pure functions of the vectors they are
// given; which vectors an attacker may see (what it received, or the omniscient view) is the
// caller's choice (docs/algorithms.md, "Attacks").
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "sim/core/random.hpp"

namespace dlsim {

/// Phi^-1(p), the standard normal quantile, for p in (0, 1); bisection on erfc to ~1e-15.
double inverse_normal_cdf(double p);

/// ALIE's z for n agents of which f Byzantine (Baruch, Baruch & Goldberg 2019): with
/// s = floor(n/2 + 1) - f supporters, z = Phi^-1((n - f - s) / (n - f)). nullopt when that
/// probability is not in (0, 1) (too many or too few attackers: give z instead).
std::optional<double> alie_z(uint32_t n, uint32_t f);

/// ALIE: out = mu - z sigma, per coordinate, over `honest` (the target and its honest
/// neighbours, as He et al.'s code takes them): mean and sample standard deviation (divisor
/// count - 1; 0 for a single model). At least one model; each out.size() floats.
void alie(std::span<const std::span<const float>> honest, double z, std::span<float> out);

/// IPM (Xie, Koyejo & Gupta 2019): out = -epsilon * mean(honest), same set as alie.
void ipm(std::span<const std::span<const float>> honest, double epsilon, std::span<float> out);

/// Sign flip: out = -x_b, the attacker's own model.
void sign_flip(std::span<const float> own, std::span<float> out);

/// Gaussian: out = x_b + sigma * N(0, 1), one draw per coordinate in order from `random` (the
/// attacker's own stream). sigma >= 0.
void gaussian(std::span<const float> own, double sigma, RandomStream& random, std::span<float> out);

/// Dissensus (He, Karimireddy & Jaggi 2022): out = x_t - epsilon * sum_j W_tj (x_j - x_t) /
/// byzantine_weight, j over the target's honest neighbours (not t), W_tj parallel to `honest`,
/// byzantine_weight = sum of W_tb over t's Byzantine neighbours (> 0). Every attacker of t sends
/// the same vector, so together they cancel epsilon times t's honest pull.
void dissensus(std::span<const float> target, std::span<const std::span<const float>> honest,
               std::span<const double> honest_weights, double byzantine_weight, double epsilon,
               std::span<float> out);

}  // namespace dlsim
