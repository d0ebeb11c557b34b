#include "sim/core/thread_pool.hpp"

namespace dlsim {

ThreadPool::ThreadPool(unsigned threads) {
  for (unsigned i = 1; i < (threads == 0 ? 1 : threads); ++i)
    workers_.emplace_back([this, i] { worker_loop(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::run_block(unsigned block, unsigned blocks) {
  const size_t begin = n_ * block / blocks;
  const size_t end = n_ * (block + 1) / blocks;
  size_t i = begin;
  try {
    for (; i < end; ++i) (*body_)(i);
  } catch (...) {
    // Keep the lowest index's: the error a serial loop meets first, whatever the timing.
    std::lock_guard lock(mutex_);
    if (!error_ || i < error_index_) {
      error_ = std::current_exception();
      error_index_ = i;
    }
  }
}

void ThreadPool::worker_loop(unsigned index) {
  uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
    }
    run_block(index, threads());
    {
      std::lock_guard lock(mutex_);
      if (--pending_ == 0) done_.notify_one();
    }
  }
}

void ThreadPool::parallel_for(size_t n, const std::function<void(size_t)>& body) {
  if (workers_.empty() || n <= 1) {
    for (size_t i = 0; i < n; ++i) body(i);
    return;
  }
  {
    std::lock_guard lock(mutex_);
    body_ = &body;
    n_ = n;
    error_ = nullptr;
    pending_ = static_cast<unsigned>(workers_.size());
    ++generation_;
  }
  wake_.notify_all();
  run_block(0, threads());
  std::unique_lock lock(mutex_);
  done_.wait(lock, [&] { return pending_ == 0; });
  if (error_) std::rethrow_exception(error_);
}

}  // namespace dlsim
