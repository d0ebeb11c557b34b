#include "sim/robust/aggregation_workspace.hpp"

#include <array>
#include <functional>

#include "sim/core/error.hpp"

namespace dlsim {

AggregationWorkspace::AggregationWorkspace(size_t dimension, size_t max_neighbours)
    : dimension_(dimension),
      max_neighbours_(max_neighbours),
      views_(max_neighbours),
      column_(max_neighbours + 1),
      per_member_(max_neighbours + 1),
      per_member2_(max_neighbours + 1),
      distances_((max_neighbours + 1) * (max_neighbours + 1)),
      row_(max_neighbours + 1),
      order_(max_neighbours + 1) {}

std::span<std::span<const float>> AggregationWorkspace::views(size_t count) {
  DLSIM_CHECK(count <= max_neighbours_, "{} neighbours, a workspace for {}", count,
              max_neighbours_);
  return std::span(views_).first(count);
}

const SelectionNetwork& AggregationWorkspace::selection_network(size_t n, size_t first,
                                                                size_t last) {
  for (const std::optional<SelectionNetwork>& net : networks_)
    if (net && net->inputs() == n && net->first() == first && net->last() == last) return *net;
  std::optional<SelectionNetwork>& slot = networks_[next_network_];
  next_network_ = (next_network_ + 1) % kCachedNetworks;
  return slot.emplace(n, first, last);
}

namespace {
bool overlaps(std::span<const float> a, std::span<const float> b) {
  // std::less gives a total order on pointers even across unrelated arrays.
  const std::less<const float*> before;
  return before(a.data(), b.data() + b.size()) && before(b.data(), a.data() + a.size());
}
}  // namespace

void check_fits(const Neighbourhood& in, std::span<const float> out,
                const AggregationWorkspace& ws) {
  const size_t d = ws.dimension();
  DLSIM_CHECK(in.own.size() == d && out.size() == d, "own {} and out {} floats, workspace {}",
              in.own.size(), out.size(), d);
  DLSIM_CHECK(in.others.size() <= ws.max_neighbours(), "{} neighbours, a workspace for {}",
              in.others.size(), ws.max_neighbours());
  DLSIM_CHECK(!overlaps(out, in.own), "out overlaps the own model");
  for (size_t k = 0; k < in.others.size(); ++k) {
    DLSIM_CHECK(in.others[k].size() == d, "neighbour {} has {} floats, not {}", k,
                in.others[k].size(), d);
    DLSIM_CHECK(!overlaps(out, in.others[k]), "out overlaps neighbour {}", k);
  }
}

double squared_distance(std::span<const float> a, std::span<const float> b) {
  // kLanes partial sums, lane l taking the coordinates e = l (mod kLanes), added in lane order at
  // the end: independent chains the compiler keeps in vector registers, in an order this code
  // fixes, whatever the instruction set and the thread count.
  constexpr size_t kLanes = 16;
  std::array<double, kLanes> part{};
  const size_t full = a.size() - a.size() % kLanes;
  for (size_t e = 0; e < full; e += kLanes)
    for (size_t l = 0; l < kLanes; ++l) {
      const double diff = static_cast<double>(a[e + l]) - static_cast<double>(b[e + l]);
      part[l] += diff * diff;
    }
  for (size_t e = full; e < a.size(); ++e) {
    const double diff = static_cast<double>(a[e]) - static_cast<double>(b[e]);
    part[e - full] += diff * diff;
  }
  double sum = 0.0;
  for (const double p : part) sum += p;
  return sum;
}

}  // namespace dlsim
