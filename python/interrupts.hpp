// Ctrl-C while the engine runs without the GIL: Python's C signal handler only sets a flag, and
// its Python handler (KeyboardInterrupt) runs when the main thread next holds the GIL. Between
// iterations the engine calls check(), which on the caller's thread takes the GIL at most every
// 20 ms to run pending handlers; an exception they raise is kept, and every thread of the run
// (a sweep's other runs too) then throws Cancelled, so each run removes its OUT.tmp.
#pragma once

#include <pybind11/pybind11.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <thread>

namespace dlsim::python {

class Interrupts {
 public:
  /// Created (with the GIL) on the thread that calls the engine.
  Interrupts() : caller_(std::this_thread::get_id()) {}
  /// Called without the GIL, on any thread of the run; throws Cancelled once a signal handler
  /// raised (or stop() was called).
  void check();
  /// Makes every later check() throw; `error` is what rethrow() raises (call with the GIL).
  void stop(pybind11::error_already_set error);
  /// With the GIL, after the engine returned or threw: raises the kept Python exception, if any.
  void rethrow();
  /// Runs `work` on a thread of its own while the caller's thread, without the GIL, runs Python's
  /// signal handlers every 20 ms (stop() on an exception); returns or rethrows work's outcome.
  /// For sweeps: their runs are spread over threads, and the caller's may be idle, waiting for
  /// the others, long before the sweep ends.
  void run_watched(const std::function<void()>& work);

 private:
  std::thread::id caller_;
  std::chrono::steady_clock::time_point next_check_{};
  std::atomic<bool> stopped_{false};
  std::optional<pybind11::error_already_set> error_;  // written once, before stopped_ is set
};

}  // namespace dlsim::python
