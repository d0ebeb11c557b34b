#include "sim/core/launcher.hpp"

#include <cstdlib>
#include <string>

namespace dlsim {

bool started_by_mpi_launcher() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK"})
    if (std::getenv(name) != nullptr) return true;
  return false;
}

unsigned launcher_task_count() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS"}) {
    const char* value = std::getenv(name);
    if (value == nullptr) continue;
    try {
      return static_cast<unsigned>(std::max(1ul, std::stoul(value)));
    } catch (const std::exception&) {
      continue;  // not a number: not a launcher we know
    }
  }
  return 1;
}

}  // namespace dlsim
