// Evaluator::evaluate_over_ranks (evaluation.hpp): one evaluation point of a run over MPI ranks,
// with the bits of one process. Float addition is not associative, so the averaged model is
// not summed per rank and then combined: the running sum travels from rank to rank in agent
// order (design point 7 of docs/partitioned-runs.md), R messages of one model in float and one
// in double per point. The consensus distance's terms go to rank 0, which adds them in order.
#include <cmath>
#include <cstring>
#include <limits>

#include "sim/core/error.hpp"
#include "sim/metrics/evaluation.hpp"

namespace dlsim {
namespace {

// What each rank sends rank 0 per agent it holds.
struct AgentResult {
  ModelScore score;
  double squared = 0.0;  // ||x_i - x_bar||^2 in double, when the agent counts
};

template <class T>
std::span<const std::byte> bytes_of(std::span<T> values) {
  return std::as_bytes(values);
}

// Reads `bytes` (what bytes_of wrote) into `out`, which must have their length.
template <class T>
void copy_into(std::span<const std::byte> bytes, std::span<T> out, const char* what) {
  DLSIM_CHECK(bytes.size() == out.size_bytes(), "{}: {} bytes where {} were expected", what,
              bytes.size(), out.size_bytes());
  std::memcpy(out.data(), bytes.data(), bytes.size());
}

}  // namespace

void Evaluator::evaluate_over_ranks(ThreadPool& pool, const EvalInput& in, const CommRecorder& comm,
                                    EvalPoint& out, RankCollectives& ranks, uint32_t first,
                                    uint32_t end) {
  const std::span<const Agent> agents = in.agents;
  const size_t n = agents.size();
  DLSIM_CHECK(first <= end && end <= n && in.center == nullptr,
              "agents [{}, {}) of {} evaluated here, centre model {}", first, end, n,
              in.center != nullptr);
  results_.resize(n);
  fill_counts(in, comm, out);  // this rank's flags are right for its own agents
  pool.parallel_for(end - first, [&](size_t k) {
    out.agents[first + k].score = score(first + k, agents[first + k].x);
  });
  // Who counts: the honest agents, online ones only unless none is (summed over ranks).
  int64_t seen[2] = {0, 0};  // honest, online honest
  for (uint32_t i = first; i < end; ++i) {
    if (out.agents[i].byzantine) continue;
    ++seen[0];
    seen[1] += out.agents[i].online ? 1 : 0;
  }
  ranks.all_reduce(seen, Reduction::kSum);
  const auto online = static_cast<size_t>(seen[1]);
  const size_t m = online == 0 ? static_cast<size_t>(seen[0]) : online;

  // The running sums, from the previous rank (zero on rank 0), through this rank's agents.
  const Eigen::Index d = agents[first].x.size();  // agents outside [first, end) are not held
  const uint32_t rank = ranks.rank(), last = ranks.ranks() - 1;
  mean_.setZero(d);
  mean_exact_.setZero(d);
  const auto sums_in = [&](uint32_t from) {
    const std::vector<std::byte> floats = ranks.receive(from), doubles = ranks.receive(from);
    copy_into(floats, std::span(mean_.data(), static_cast<size_t>(d)), "the averaged model");
    copy_into(doubles, std::span(mean_exact_.data(), static_cast<size_t>(d)), "the averaged model");
  };
  const auto sums_out = [&](uint32_t to) {
    ranks.send(to, bytes_of(std::span(mean_.data(), static_cast<size_t>(d))));
    ranks.send(to, bytes_of(std::span(mean_exact_.data(), static_cast<size_t>(d))));
  };
  if (rank > 0) sums_in(rank - 1);
  for (uint32_t i = first; i < end; ++i) {
    if (!counted(out.agents[i], online)) continue;
    mean_ += agents[i].x;
    mean_exact_ += agents[i].x.cast<double>();
  }
  if (rank < last) sums_out(rank + 1);
  if (rank == last && last > 0) sums_out(0);
  if (rank == 0 && last > 0) sums_in(last);
  std::vector<std::byte> centre;
  if (rank == 0) {
    mean_ /= static_cast<float>(m);
    mean_exact_ /= static_cast<double>(m);
    const auto b = bytes_of(std::span(mean_exact_.data(), static_cast<size_t>(d)));
    centre.assign(b.begin(), b.end());
  }
  ranks.broadcast_from_rank_0(centre);
  copy_into(centre, std::span(mean_exact_.data(), static_cast<size_t>(d)), "the averaged model");

  std::vector<AgentResult> mine(end - first);
  for (uint32_t i = first; i < end; ++i) {
    AgentResult& r = mine[i - first];
    r.score = out.agents[i].score;
    if (counted(out.agents[i], online))
      r.squared = (agents[i].x.cast<double>() - mean_exact_).squaredNorm();
  }
  const std::vector<std::vector<std::byte>> all = ranks.gather_to_rank_0(bytes_of(std::span(mine)));
  if (rank != 0) return;
  double squared = 0.0;
  size_t i = 0;
  for (const std::vector<std::byte>& from_rank : all) {
    std::vector<AgentResult> theirs(from_rank.size() / sizeof(AgentResult));
    copy_into(from_rank, std::span(theirs), "the agents' scores");
    for (const AgentResult& r : theirs) {
      DLSIM_CHECK(i < n, "more than the {} agents' scores", n);
      out.agents[i].score = r.score;
      if (counted(out.agents[i], online)) squared += r.squared;
      ++i;
    }
  }
  DLSIM_CHECK(i == n, "{} agents' scores for {} agents", i, n);
  out.consensus_distance = std::sqrt(squared / static_cast<double>(m));
  score_aggregate(out);
  out.center.reset();
}

}  // namespace dlsim
