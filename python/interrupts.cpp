#include "python/interrupts.hpp"

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

}  // namespace dlsim::python
