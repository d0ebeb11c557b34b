#include "python/interrupts.hpp"

#include <condition_variable>
#include <exception>
#include <mutex>

#include "sim/core/error.hpp"

namespace dlsim::python {

namespace py = pybind11;

void Interrupts::check() {
  if (stopped_.load()) throw Cancelled("interrupted");
  // Only the main thread runs Python's signal handlers; polling costs a GIL round trip, so it is
  // rate-limited (an iteration of a small model takes microseconds).
  if (std::this_thread::get_id() != caller_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now < next_check_) return;
  next_check_ = now + std::chrono::milliseconds(20);
  py::gil_scoped_acquire gil;
  if (PyErr_CheckSignals() == 0) return;
  stop(py::error_already_set());
  throw Cancelled("interrupted");
}

void Interrupts::stop(py::error_already_set error) {
  if (!stopped_.load() && !error_) error_.emplace(std::move(error));
  stopped_ = true;
}

void Interrupts::rethrow() {
  if (!error_) return;
  py::error_already_set error = std::move(*error_);
  error_.reset();
  throw error;
}

void Interrupts::run_watched(const std::function<void()>& work) {
  std::exception_ptr failure;
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;
  std::thread worker([&] {
    try {
      work();
    } catch (...) {
      failure = std::current_exception();
    }
    const std::lock_guard lock(mutex);
    done = true;
    finished.notify_all();
  });
  {
    py::gil_scoped_release release;
    std::unique_lock lock(mutex);
    while (!finished.wait_for(lock, std::chrono::milliseconds(20), [&] { return done; })) {
      lock.unlock();
      {
        py::gil_scoped_acquire gil;
        if (PyErr_CheckSignals() != 0) stop(py::error_already_set());
      }
      lock.lock();
    }
  }
  worker.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace dlsim::python
