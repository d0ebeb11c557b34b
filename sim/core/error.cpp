#include "sim/core/error.hpp"

namespace dlsim {

CheckContext& current_check_context() {
  thread_local CheckContext context;
  return context;
}

void check_failed(const char* file, int line, const char* condition, const std::string& message) {
  const CheckContext& c = current_check_context();
  throw InvariantError(fmt::format("{}:{}: check failed: {} ({}) [t={}ns agent={}]", file, line,
                                   condition, message, c.time_ns, c.agent));
}

}  // namespace dlsim
