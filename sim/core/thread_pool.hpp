// A fixed pool of worker threads for per-agent work. parallel_for splits [0, n) into one
// contiguous block per thread; each index writes only its own slot, so results never depend on
// the thread count or on timing (STYLE.md, "Determinism").
#pragma once

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
  void worker_loop(unsigned index);
  void run_block(unsigned block, unsigned blocks);

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  const std::function<void(size_t)>* body_ = nullptr;
  size_t n_ = 0;
  uint64_t generation_ = 0;
  unsigned pending_ = 0;
  bool stopping_ = false;
  std::exception_ptr error_;
  size_t error_index_ = 0;  // the index whose body threw error_
};

}  // namespace dlsim
