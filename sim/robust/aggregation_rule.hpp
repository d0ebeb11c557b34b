// Robust aggregation rules: how agent i combines its own model with the copies it holds of its
// neighbours' when some neighbours may be Byzantine. Each rule writes the mixed model into `out`
// and allocates nothing (the AggregationWorkspace is sized once). Exact rules and their papers:
// docs/algorithms.md, "Robust aggregation".
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "sim/robust/aggregation_workspace.hpp"

namespace dlsim {

enum class AggregationKind {
  kMean,             // W_ii x_i + sum_j W_ij x_j (plain gossip)
  kClippedGossip,    // x_i + sum_j W_ij clip(x_j - x_i, tau)
  kTrimmedMean,      // coordinate-wise, b dropped per side
  kMedian,           // coordinate-wise
  kKrum,             // the member with the lowest Krum score
  kMultiKrum,        // the mean of the m lowest scores
  kGeometricMedian,  // smoothed Weiszfeld
  kBalance,          // distance filter, then alpha x_i + (1 - alpha) mean(accepted)
};

/// clipped_gossip's radius: a fixed tau, or the paper's adaptive one (the second largest
/// distance ||x_j - x_i|| of the round; the only one with a single neighbour).
enum class ClipRadius { kFixed, kAdaptive };

/// A rule and its parameters; only those of `kind` are read.
struct AggregationSpec {
  AggregationKind kind = AggregationKind::kMean;
  ClipRadius radius = ClipRadius::kFixed;  // clipped_gossip
  double tau = 1.0;                        // clipped_gossip, fixed: > 0
  uint32_t trim = 1;                       // trimmed_mean: b values dropped per side
  uint32_t byzantine = 1;                  // krum, multi_krum: f
  uint32_t selected = 1;                   // multi_krum: m
  uint32_t iterations = 8;                 // geometric_median: Weiszfeld steps
  double nu = 0.1;                         // geometric_median: smoothing, > 0
  double gamma = 2.0;                      // balance: acceptance radius, relative to ||x_i||
  double kappa = 1.0;                      // balance: how fast the radius shrinks
  double alpha = 0.5;                      // balance: weight of the own model, in [0, 1]
};

/// The rule's name as a scenario would spell it ("clipped_gossip").
std::string_view to_string(AggregationKind kind);

/// Why `spec` cannot aggregate a set of `members` models (own included), as one line such as
/// "krum needs at least 2f + 3 = 7 models, has 5"; empty when it can. Checks the parameters too.
std::string refusal(const AggregationSpec& spec, size_t members);

/// Applies `spec` to `in` into `out` (D floats, overlapping no input). progress = t / T for
/// balance (iteration over total), ignored by the others. Throws InvariantError on a refusal.
void aggregate(const AggregationSpec& spec, const Neighbourhood& in, double progress,
               std::span<float> out, AggregationWorkspace& ws);

/// out = W_ii x_i + sum_j W_ij x_j, in float, neighbours in order (the gossip step).
void mean_rule(const Neighbourhood& in, std::span<float> out, AggregationWorkspace& ws);

/// out = x_i + sum_j W_ij clip(x_j - x_i, tau); with no clip active it is mean_rule bit for bit.
/// Needs W_ii + sum_j W_ij = 1. tau > 0 when fixed.
void clipped_gossip(const Neighbourhood& in, ClipRadius radius, double tau, std::span<float> out,
                    AggregationWorkspace& ws);

/// The adaptive radius of clipped_gossip for `in` (0 with no neighbour).
double adaptive_clip_radius(const Neighbourhood& in, AggregationWorkspace& ws);

/// Per coordinate: drop the b largest and b smallest of the n members, average the rest (summed
/// in ascending order, in double). Needs n > 2b and finite inputs.
void trimmed_mean(const Neighbourhood& in, uint32_t b, std::span<float> out,
                  AggregationWorkspace& ws);

/// Per coordinate: the middle value, or the mean of the two middle ones for an even count.
/// Needs finite inputs.
void coordinate_median(const Neighbourhood& in, std::span<float> out, AggregationWorkspace& ws);

/// Multi-Krum: average (in member order) the m members with the lowest scores, a score being
/// the sum of the n - f - 2 smallest squared distances to the other members; ties go to the
/// lower member index. m = 1 is Krum. Needs n >= 2f + 3 and 1 <= m <= n.
void multi_krum(const Neighbourhood& in, uint32_t f, uint32_t m, std::span<float> out,
                AggregationWorkspace& ws);

/// Krum: the member with the lowest score (multi_krum with m = 1).
inline void krum(const Neighbourhood& in, uint32_t f, std::span<float> out,
                 AggregationWorkspace& ws) {
  multi_krum(in, f, 1, out, ws);
}

/// Smoothed Weiszfeld from the members' mean: `iterations` times z <- sum_v b_v v / sum_v b_v
/// with b_v = 1 / max(nu, ||v - z||). nu > 0.
void geometric_median(const Neighbourhood& in, uint32_t iterations, double nu, std::span<float> out,
                      AggregationWorkspace& ws);

/// BALANCE: accept x_j when ||x_j - x_i|| <= gamma exp(-kappa progress) ||x_i||; out = alpha x_i
/// + (1 - alpha) mean(accepted), or x_i when none is accepted. progress = t / T in [0, 1].
void balance(const Neighbourhood& in, double gamma, double kappa, double alpha, double progress,
             std::span<float> out, AggregationWorkspace& ws);

}  // namespace dlsim
