// A fixed pool of worker threads for per-agent work. parallel_for hands out the indices [0, n)
// one at a time to whichever thread is free (agents' steps differ in cost: an event, a recomputed
// consensus); each index writes only its own slot, so results never depend on the thread count
// or on timing (CONTRIBUTING.md, "Determinism"). Threads spin for a few tens of microseconds before
// sleeping: a run calls parallel_for twice per iteration, and a sleep/wake pair costs about as
// much as that in a virtual machine.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace dlsim {

class ThreadPool {
 public:
  /// threads >= 1; 1 runs everything on the calling thread.
  explicit ThreadPool(unsigned threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  unsigned threads() const { return static_cast<unsigned>(workers_.size()) + 1; }

  /// Calls body(i) for every i in [0, n), blocks until all are done. If bodies throw, the
  /// exception of the lowest index is rethrown here (the one a serial loop would meet first; the
  /// others are dropped), so errors do not depend on the thread count. Not reentrant.
  void parallel_for(size_t n, const std::function<void(size_t)>& body);

 private:
  void worker_loop();
  void run_indices();

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  // Written before generation_ is advanced, read after it is seen advanced.
  const std::function<void(size_t)>* body_ = nullptr;
  size_t n_ = 0;
  std::atomic<size_t> next_{0};          // the next index to hand out
  std::atomic<uint64_t> generation_{0};  // advanced (under mutex_) by each parallel_for
  std::atomic<unsigned> pending_{0};     // workers still in the current parallel_for
  std::atomic<bool> stopping_{false};
  std::exception_ptr error_;  // under mutex_
  size_t error_index_ = 0;    // under mutex_: the index whose body threw error_
};

}  // namespace dlsim
