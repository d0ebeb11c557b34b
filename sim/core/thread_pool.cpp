#include "sim/core/thread_pool.hpp"

#include <chrono>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace dlsim {
namespace {

// How long a thread polls before it sleeps on a condition variable.
constexpr auto kSpin = std::chrono::microseconds(50);

// Polls `ready` for up to kSpin; true as soon as it holds.
template <class Ready>
bool spin_until(Ready&& ready) {
  const auto deadline = std::chrono::steady_clock::now() + kSpin;
  for (unsigned round = 1;; ++round) {
    if (ready()) return true;
#if defined(__x86_64__)
    _mm_pause();
#endif
    if (round % 64 == 0 && std::chrono::steady_clock::now() > deadline) return ready();
  }
}

}  // namespace

ThreadPool::ThreadPool(unsigned threads) {
  for (unsigned i = 1; i < (threads == 0 ? 1 : threads); ++i)
    workers_.emplace_back([this] { worker_loop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::run_indices() {
  size_t i = 0;
  try {
    for (i = next_.fetch_add(1); i < n_; i = next_.fetch_add(1)) (*body_)(i);
  } catch (...) {
    next_ = n_;  // hand out nothing more: every lower index is already running or done
    // Keep the lowest index's: the error a serial loop meets first, whatever the timing.
    std::lock_guard lock(mutex_);
    if (!error_ || i < error_index_) {
      error_ = std::current_exception();
      error_index_ = i;
    }
  }
}

void ThreadPool::worker_loop() {
  uint64_t seen = 0;
  for (;;) {
    auto ready = [&] { return stopping_ || generation_.load() != seen; };
    if (!spin_until(ready)) {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, ready);
    }
    if (stopping_) return;
    seen = generation_.load();
    run_indices();
    if (pending_.fetch_sub(1) == 1) {
      std::lock_guard lock(mutex_);  // the caller may be between its check and its wait
      done_.notify_one();
    }
  }
}

void ThreadPool::parallel_for(size_t n, const std::function<void(size_t)>& body) {
  if (workers_.empty() || n <= 1) {
    for (size_t i = 0; i < n; ++i) body(i);
    return;
  }
  body_ = &body;
  n_ = n;
  next_ = 0;
  error_ = nullptr;
  pending_ = static_cast<unsigned>(workers_.size());
  {
    std::lock_guard lock(mutex_);  // a worker between its check and its wait sees the new round
    ++generation_;
  }
  wake_.notify_all();
  run_indices();
  auto finished = [&] { return pending_.load() == 0; };
  if (!spin_until(finished)) {
    std::unique_lock lock(mutex_);
    done_.wait(lock, finished);
  }
  std::lock_guard lock(mutex_);
  if (error_) std::rethrow_exception(error_);
}

}  // namespace dlsim
