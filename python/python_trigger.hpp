// trigger=fn for dlsim.run: a TriggerDecider (sim/agents/trigger.hpp) that asks a Python callable
// fn(agent, iteration, drift, step_size) -> bool. The calls come in a fixed order whatever the
// thread count, so a stateful fn (a budget, a log) sees the same sequence on 1 or 64 threads:
// - sync mode: every agent decides in its prepare(), which the pool runs for many agents at once;
//   each call waits for the previous agent's (agent order within a round). The pool hands out
//   agents in increasing order (sim/core/thread_pool.hpp), so the agent being waited for is
//   already running and the wait always ends. Drifts and gradients still run in parallel; only
//   the Python calls are serial, and they hold the GIL anyway.
// - async mode: the event loop calls prepare() in event order on one thread; no wait is needed.
// An exception raised by fn, or a return value that is not a bool (Python's, or numpy.bool_),
// stops the run: the error (a TypeError for the latter) gets a note naming the agent and
// iteration and is raised by dlsim.run.
#pragma once

#include <pybind11/pybind11.h>

#include <atomic>
#include <condition_variable>
#include <mutex>

#include "python/interrupts.hpp"
#include "sim/agents/trigger.hpp"

namespace dlsim::python {

enum class CallOrder { kAgentOrder, kAsCalled };  // sync rounds, async event order

class PythonTrigger final : public TriggerDecider {
 public:
  /// Created with the GIL. `stop` keeps fn's error and stops the run's other threads.
  PythonTrigger(pybind11::function fn, uint32_t agents, CallOrder order, Interrupts& stop);
  /// Called without the GIL.
  bool decide(AgentId agent, const TriggerInput& in) override;

 private:
  bool call(AgentId agent, const TriggerInput& in);
  void wait_turn(AgentId agent);
  void pass_turn(bool failed);

  pybind11::function fn_;
  pybind11::object numpy_bool_;  // numpy.bool_, or None without numpy
  uint32_t agents_;
  CallOrder order_;
  Interrupts& stop_;
  // Written under mutex_ (so a sleeping waiter cannot miss a change), read without it while
  // spinning: a hand-over between two running threads then costs no sleep and wake-up.
  std::mutex mutex_;
  std::condition_variable turn_changed_;
  std::atomic<uint32_t> turn_{0};    // the agent whose call is next in this round
  std::atomic<bool> failed_{false};  // a call failed: the waiting ones give up
};

}  // namespace dlsim::python
