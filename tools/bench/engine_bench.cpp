// Event-engine speed: the classic "hold" workload (pop the earliest event, push one at its time
// plus a random delay, so the number pending stays fixed) on dlsim's EventQueue (a radix heap),
// on std::priority_queue and on a 4-ary heap (dlsim's queue before the radix heap) over the same
// 24-byte events, and through Simulator::run (which adds the fingerprint and check context).
// Also the queue's peak memory per pending event. Rates use process CPU time, so that other
// processes on a shared machine slow them less; on an idle machine it equals wall time.
// Usage: engine_bench [operations per run = 20000000] [repeats = 3]; prints medians.
#include <fmt/format.h>
#include <malloc.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <queue>
#include <string>
#include <vector>

#include "sim/core/event_queue.hpp"
#include "sim/core/random.hpp"
#include "sim/core/simulator.hpp"

using namespace dlsim;

namespace {

// Delays, exponential with mean 1 ms, drawn once so that every queue sees the same workload
// and the timing excludes the generator.
std::vector<int64_t> make_delays(uint64_t seed) {
  RandomStream random(seed, "bench-delay", 0);
  std::vector<int64_t> delays(1 << 16);
  for (int64_t& d : delays) d = std::llround(-std::log(1.0 - random.uniform()) * 1e6);
  return delays;
}

struct Later {  // std::priority_queue is a max-heap: "less" must mean "runs later"
  bool operator()(const Event& a, const Event& b) const { return runs_before(b, a); }
};
using StdQueue = std::priority_queue<Event, std::vector<Event>, Later>;

// The previous EventQueue: a 4-ary min-heap with top-down sift.
class FourAryHeap {
 public:
  void push(const Event& e) {
    size_t hole = heap_.size();
    heap_.push_back(e);
    for (; hole > 0 && runs_before(e, heap_[(hole - 1) / 4]); hole = (hole - 1) / 4)
      heap_[hole] = heap_[(hole - 1) / 4];
    heap_[hole] = e;
  }
  Event pop() {
    const Event result = heap_.front();
    const Event last = heap_.back();
    heap_.pop_back();
    const size_t n = heap_.size();
    size_t hole = 0;
    for (size_t first = 1; n > 0 && first < n; first = hole * 4 + 1) {
      size_t best = first;
      for (size_t c = first + 1; c < std::min(first + 4, n); ++c)
        if (runs_before(heap_[c], heap_[best])) best = c;
      if (!runs_before(heap_[best], last)) break;
      heap_[hole] = heap_[best];
      hole = best;
    }
    if (n > 0) heap_[hole] = last;
    return result;
  }

 private:
  std::vector<Event> heap_;
};

Event pop_event(EventQueue& q) { return q.pop(); }
Event pop_event(FourAryHeap& q) { return q.pop(); }
Event pop_event(StdQueue& q) {
  const Event e = q.top();
  q.pop();
  return e;
}

double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// Events per second of `ops` hold operations with `pending` events in the queue.
template <class Queue>
double hold_queue(size_t pending, uint64_t ops, const std::vector<int64_t>& delays) {
  Queue q;
  uint64_t seq = 0;
  const size_t mask = delays.size() - 1;
  for (size_t i = 0; i < pending; ++i) q.push(Event{SimTime{delays[i & mask]}, seq++ << 8, {}, 0});
  int64_t checksum = 0;
  auto step = [&](uint64_t i) {
    const Event e = pop_event(q);
    checksum += e.time.ns;
    q.push(Event{SimTime{e.time.ns + delays[(i + pending) & mask]}, seq++ << 8, e.agent, 0});
  };
  for (uint64_t i = 0; i < ops / 10; ++i) step(i);  // warm-up: reach the steady-state shape
  const double start = cpu_seconds();
  for (uint64_t i = 0; i < ops; ++i) step(i);
  const double s = cpu_seconds() - start;
  if (checksum == 42) fmt::print("");  // keeps the work observable
  return static_cast<double>(ops) / s;
}

double hold_simulator(size_t pending, uint64_t ops, const std::vector<int64_t>& delays) {
  Simulator sim(1);
  const size_t mask = delays.size() - 1;
  for (size_t i = 0; i < pending; ++i)
    sim.schedule_at(SimTime{delays[i & mask]}, EventKind::kTimer,
                    AgentId{static_cast<uint32_t>(i)});
  uint64_t i = pending;
  auto handler = [&](const Event& e) {
    sim.schedule_in(SimTime{delays[i++ & mask]}, EventKind::kTimer, e.agent);
    if (i == pending + ops + ops / 10) sim.stop();
  };
  sim.run([&](const Event& e) {
    handler(e);
    if (i == pending + ops / 10) sim.stop();  // end of warm-up
  });
  const double start = cpu_seconds();
  const uint64_t handled = sim.run(handler);
  return static_cast<double>(handled) / (cpu_seconds() - start);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class F>
double median_of(int repeats, F&& f) {
  std::vector<double> runs;
  for (int r = 0; r < repeats; ++r) runs.push_back(f());
  return median(runs);
}

// Peak resident memory in kB (VmHWM), and a reset of that peak (Linux clear_refs "5").
long peak_rss_kb() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
  return -1;
}
void reset_peak_rss() {
  malloc_trim(0);  // hand freed memory back first, or the next peak reuses it unseen
  std::ofstream("/proc/self/clear_refs") << "5";
}

// Bytes of peak memory per pending event: `pending` events, then 2 x pending hold operations
// (buckets fill and empty as time advances).
template <class Queue>
double bytes_per_pending(size_t pending, const std::vector<int64_t>& delays) {
  reset_peak_rss();
  const long before = peak_rss_kb();
  hold_queue<Queue>(pending, 2 * pending, delays);
  return static_cast<double>(peak_rss_kb() - before) * 1024.0 / static_cast<double>(pending);
}

}  // namespace

int main(int argc, char** argv) {
  const uint64_t ops = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 20000000;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 3;
  const std::vector<int64_t> delays = make_delays(1);
  for (size_t pending : {size_t{100000}, size_t{1000000}, size_t{10000000}})
    fmt::print(
        "peak RSS per pending event, {:>8} pending: EventQueue {:5.1f} B, 4-ary heap {:5.1f} B\n",
        pending, bytes_per_pending<EventQueue>(pending, delays),
        bytes_per_pending<FourAryHeap>(pending, delays));
  fmt::print("hold workload, {} operations per run, median of {} runs (events/s)\n", ops, repeats);
  fmt::print("{:>9} | {:>11} | {:>14} | {:>11} | {:>14} | {:>14}\n", "pending", "EventQueue",
             "priority_queue", "4-ary heap", "EventQueue/pq", "Simulator::run");
  for (size_t pending : {size_t{1000}, size_t{100000}}) {
    const double ours =
        median_of(repeats, [&] { return hold_queue<EventQueue>(pending, ops, delays); });
    const double std_pq =
        median_of(repeats, [&] { return hold_queue<StdQueue>(pending, ops, delays); });
    const double four =
        median_of(repeats, [&] { return hold_queue<FourAryHeap>(pending, ops, delays); });
    const double engine = median_of(repeats, [&] { return hold_simulator(pending, ops, delays); });
    fmt::print("{:>9} | {:>9.2f} M | {:>12.2f} M | {:>9.2f} M | {:>14.2f} | {:>12.2f} M\n", pending,
               ours / 1e6, std_pq / 1e6, four / 1e6, ours / std_pq, engine / 1e6);
  }
}
