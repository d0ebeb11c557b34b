// The simulator's window loop over ranks (rank_windows.cpp) without MPI: each rank is a thread
// with its own Simulator, and the PartitionExchange is shared memory behind a barrier. Compared
// with one queue, as the virtual ranks are (partitioned_simulator_test.cpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <barrier>
#include <cstring>
#include <exception>
#include <map>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/core/partition_exchange.hpp"
#include "sim/core/random.hpp"
#include "sim/core/rank_totals.hpp"
#include "sim/core/simulator.hpp"

using namespace dlsim;

namespace {

constexpr SimTime kLookahead = SimTime::from_ms(1);

// What every rank's thread writes before a barrier and reads after it.
struct SharedBoard {
  explicit SharedBoard(uint32_t n) : ranks(n), sync(n), times(n), oks(n), boxes(n), mine(n) {}
  uint32_t ranks;
  std::barrier<> sync;
  std::vector<SimTime> times;
  std::vector<char> oks;
  std::vector<std::vector<std::vector<std::byte>>> boxes;  // [from][to]
  std::vector<std::vector<std::byte>> mine;
};

class ThreadExchange final : public PartitionExchange {
 public:
  ThreadExchange(SharedBoard& board, uint32_t rank) : b_(board), rank_(rank) {}
  uint32_t rank() const override { return rank_; }
  uint32_t ranks() const override { return b_.ranks; }
  WindowStart start_window(SimTime earliest, bool ok) override {
    b_.times[rank_] = earliest;
    b_.oks[rank_] = ok;
    b_.sync.arrive_and_wait();
    WindowStart w{SimTime::max(), true};
    for (uint32_t r = 0; r < b_.ranks; ++r) {
      w.earliest = std::min(w.earliest, b_.times[r]);
      w.all_ok = w.all_ok && b_.oks[r];
    }
    b_.sync.arrive_and_wait();
    return w;
  }
  bool all_ok(bool ok) override { return start_window(SimTime::max(), ok).all_ok; }
  WindowEnd end_window(SimTime clock, bool ok) override {
    b_.times[rank_] = clock;
    b_.oks[rank_] = ok;
    b_.sync.arrive_and_wait();
    WindowEnd w{SimTime{}, true};
    for (uint32_t r = 0; r < b_.ranks; ++r) {
      w.latest = std::max(w.latest, b_.times[r]);
      w.all_ok = w.all_ok && b_.oks[r];
    }
    b_.sync.arrive_and_wait();
    return w;
  }
  ExchangeRound exchange(std::span<const std::byte> outgoing, std::span<const size_t> counts,
                         bool more) override {
    ++rounds;
    const bool any_more = !all_ok(!more);
    std::vector<std::vector<std::byte>>& boxes = b_.boxes[rank_];
    boxes.assign(b_.ranks, {});
    for (uint32_t r = 0, at = 0; r < b_.ranks; at += static_cast<uint32_t>(counts[r]), ++r)
      boxes[r].assign(outgoing.begin() + at, outgoing.begin() + at + counts[r]);
    b_.sync.arrive_and_wait();
    in_.clear();
    for (uint32_t r = 0; r < b_.ranks; ++r)
      in_.insert(in_.end(), b_.boxes[r][rank_].begin(), b_.boxes[r][rank_].end());
    b_.sync.arrive_and_wait();
    return ExchangeRound{in_, any_more};
  }
  size_t rounds = 0;  // exchange() calls
  std::vector<std::vector<std::byte>> gather_to_rank_0(std::span<const std::byte> mine) override {
    b_.mine[rank_].assign(mine.begin(), mine.end());
    b_.sync.arrive_and_wait();
    std::vector<std::vector<std::byte>> all;
    if (rank_ == 0) all = b_.mine;
    b_.sync.arrive_and_wait();
    return all;
  }

 private:
  SharedBoard& b_;
  uint32_t rank_;
  std::vector<std::byte> in_;  // exchange()'s
};

using NodeLogs = std::map<uint32_t, std::vector<std::tuple<int64_t, uint32_t, uint32_t>>>;

struct RankResult {
  NodeLogs logs;
  RankTotals totals;
  std::string error;  // what run() threw, if it did
  size_t rounds = 0;  // of the windows' shipping, on rank 0
};

// partitioned_simulator_test.cpp's workload on node `throw_node`'s failing at 5 ms (none: -1):
// every event schedules one or two more, for its own node at any delay, for others no sooner
// than the lookahead. Returns rank 0's view with every rank's logs merged in. `round_bytes`: the
// shipping's rounds (0: the default).
RankResult run_ranks(uint32_t nodes, uint32_t ranks, int64_t throw_node = -1,
                     size_t round_bytes = 0) {
  SharedBoard board(ranks);
  std::vector<RankResult> results(ranks);
  auto work = [&](uint32_t rank) {
    ThreadExchange exchange(board, rank);
    Simulator sim(1);
    RankResult& out = results[rank];
    try {
      if (ranks > 1) sim.partition(contiguous_partitions(nodes, ranks, kLookahead), exchange);
      if (round_bytes > 0) sim.set_shipping_round_bytes(round_bytes);
      for (uint32_t i = 0; i < nodes; ++i)
        if (sim.runs_here(AgentId{i}))
          sim.schedule_at(SimTime::from_us(i % 3 * 250), EventKind::kTimer, AgentId{i});
      sim.run([&](const Event& e) {
        out.logs[e.agent.value].emplace_back(e.time.ns, e.origin().value, e.counter());
        if (e.agent.value == throw_node && e.time >= SimTime::from_ms(5))
          throw std::runtime_error("node failed on purpose");
        if (e.time > SimTime::from_ms(20)) return;
        RandomStream draw(e.key, "workload", e.agent.value);
        const uint32_t more = 1 + static_cast<uint32_t>(draw.below(2));
        for (uint32_t k = 0; k < more; ++k) {
          const uint32_t to = static_cast<uint32_t>(draw.below(nodes));
          const SimTime delay =
              to == e.agent.value
                  ? SimTime{static_cast<int64_t>(draw.below(3)) * 500'000}
                  : kLookahead + SimTime{static_cast<int64_t>(draw.below(4)) * 250'000};
          sim.schedule_in(delay, EventKind::kTimer, AgentId{to});
        }
      });
      out.totals = ranks > 1 ? totals_over_ranks(sim, exchange)
                             : RankTotals{sim.fingerprint(), sim.events_processed()};
      out.rounds = exchange.rounds;
    } catch (const std::exception& e) {
      out.error = e.what();
    }
  };
  std::vector<std::thread> threads;
  for (uint32_t r = 0; r < ranks; ++r) threads.emplace_back(work, r);
  for (std::thread& t : threads) t.join();
  for (uint32_t r = 1; r < ranks; ++r) {
    results[0].logs.merge(results[r].logs);
    if (!results[r].error.empty()) results[0].error += " | " + results[r].error;
  }
  return results[0];
}

}  // namespace

TEST_CASE("ranks exchanging events at each window give every node one queue's events and order") {
  const RankResult one = run_ranks(12, 1);
  REQUIRE(one.logs.size() == 12);
  for (uint32_t ranks : {2u, 3u, 5u}) {
    CAPTURE(ranks);
    const RankResult r = run_ranks(12, ranks);
    CHECK(r.error.empty());
    CHECK(r.logs == one.logs);
    CHECK(r.totals.events_handled == one.totals.events_handled);
    CHECK(r.totals.fingerprint.value() == one.totals.fingerprint.value());
  }
}

TEST_CASE("windows shipped in rounds of one event per rank give one queue's events and order") {
  const RankResult one = run_ranks(12, 1);
  for (uint32_t ranks : {2u, 3u}) {
    CAPTURE(ranks);
    const RankResult whole = run_ranks(12, ranks);
    const RankResult rounds = run_ranks(12, ranks, -1, 1);  // a byte: one event per round
    CHECK(rounds.error.empty());
    CHECK(rounds.logs == one.logs);
    CHECK(rounds.totals.fingerprint.value() == one.totals.fingerprint.value());
    CHECK(rounds.rounds > whole.rounds);  // some windows took several rounds
  }
  // A throw in a window that takes several rounds still reaches every rank.
  const RankResult r = run_ranks(12, 3, 5, 1);
  CHECK(r.error.find("node failed on purpose") != std::string::npos);
  CHECK(r.error.find("rank 0: another rank failed") != std::string::npos);
}

TEST_CASE("a rank whose handler throws makes every other rank's run throw at the next window") {
  // Node 5 is on rank 1 of 3 (nodes 4 to 7).
  const RankResult r = run_ranks(12, 3, 5);
  CHECK(r.error.find("node failed on purpose") != std::string::npos);
  CHECK(r.error.find("rank 0: another rank failed") != std::string::npos);
  CHECK(r.error.find("rank 2: another rank failed") != std::string::npos);
}

TEST_CASE("over ranks, events for another rank's node are refused outside a handler") {
  SharedBoard board(1);
  ThreadExchange solo(board, 0);
  // A stand-in that claims two ranks: partition() needs as many ranks as partitions.
  struct TwoRanks final : public PartitionExchange {
    PartitionExchange& inner;
    explicit TwoRanks(PartitionExchange& e) : inner(e) {}
    uint32_t rank() const override { return 0; }
    uint32_t ranks() const override { return 2; }
    WindowStart start_window(SimTime t, bool ok) override { return inner.start_window(t, ok); }
    bool all_ok(bool ok) override { return inner.all_ok(ok); }
    WindowEnd end_window(SimTime t, bool ok) override { return inner.end_window(t, ok); }
    ExchangeRound exchange(std::span<const std::byte> o, std::span<const size_t> counts,
                           bool more) override {
      return inner.exchange(o.first(counts[0]), counts.first(1), more);
    }
    std::vector<std::vector<std::byte>> gather_to_rank_0(std::span<const std::byte> m) override {
      return inner.gather_to_rank_0(m);
    }
  } two(solo);
  Simulator sim(1);
  sim.partition(contiguous_partitions(2, 2, kLookahead), two);
  CHECK(sim.runs_here(AgentId{0}));
  CHECK_FALSE(sim.runs_here(AgentId{1}));
  sim.schedule_at(SimTime{}, EventKind::kTimer, AgentId{0});
  CHECK_THROWS_AS(sim.schedule_at(kLookahead, EventKind::kTimer, AgentId{1}), InvariantError);
}
