#include "python/python_trigger.hpp"

#include <fmt/format.h>

#include <chrono>

#include "sim/core/error.hpp"

namespace dlsim::python {

namespace py = pybind11;

PythonTrigger::PythonTrigger(py::function fn, uint32_t agents, CallOrder order, Interrupts& stop)
    : fn_(std::move(fn)), numpy_bool_(py::none()), agents_(agents), order_(order), stop_(stop) {
  try {
    numpy_bool_ = py::module_::import("numpy").attr("bool_");
  } catch (const py::error_already_set&) {  // no numpy: Python's bool only
    numpy_bool_ = py::none();
  }
}

bool PythonTrigger::decide(AgentId agent, const TriggerInput& in) {
  if (order_ == CallOrder::kAsCalled) return call(agent, in);
  wait_turn(agent);
  bool fire = false;
  try {
    fire = call(agent, in);
  } catch (...) {
    pass_turn(true);
    throw;
  }
  pass_turn(false);
  return fire;
}

bool PythonTrigger::call(AgentId agent, const TriggerInput& in) {
  py::gil_scoped_acquire gil;
  const std::string where = fmt::format("dlsim: in trigger(agent={}, iteration={}, drift={}, "
                                        "step_size={})", agent.value, in.iteration, in.drift,
                                        in.alpha_k);
  try {
    const py::object r = fn_(agent.value, in.iteration, in.drift, in.alpha_k);
    if (PyBool_Check(r.ptr())) return r.ptr() == Py_True;
    if (!numpy_bool_.is_none() && py::isinstance(r, numpy_bool_)) return r.cast<bool>();
    const std::string type = py::str(py::type::of(r).attr("__name__"));
    PyErr_SetString(PyExc_TypeError,
                    fmt::format("trigger must return a bool, got {} (agent {}, iteration {})",
                                type, agent.value, in.iteration).c_str());
    throw py::error_already_set();
  } catch (py::error_already_set& e) {
    // A note (Python 3.11) keeps the exception's type and message, and shows in the traceback.
    if (py::hasattr(e.value(), "add_note")) e.value().attr("add_note")(where);
    stop_.stop(std::move(e));
  }
  throw Cancelled(where);
}

void PythonTrigger::wait_turn(AgentId agent) {
  auto ready = [&] { return failed_.load() || turn_.load() == agent.value; };
  // The previous agent's call takes microseconds: poll for up to 50 us before sleeping, as the
  // thread pool does (a futex sleep and wake-up per call made a 2-thread run of a small model
  // six times slower than with the built-in rule).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(50);
  for (unsigned round = 1; !ready(); ++round) {
    if (round % 64 != 0 || std::chrono::steady_clock::now() < deadline) continue;
    std::unique_lock lock(mutex_);
    turn_changed_.wait(lock, ready);
  }
  if (failed_.load()) throw Cancelled("another agent's trigger failed");
}

void PythonTrigger::pass_turn(bool failed) {
  {
    std::lock_guard lock(mutex_);
    if (failed) failed_ = true;
    turn_ = (turn_.load() + 1) % agents_;
  }
  turn_changed_.notify_all();
}

}  // namespace dlsim::python
