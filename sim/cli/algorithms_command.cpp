#include "sim/cli/algorithms_command.hpp"

#include <fmt/format.h>

#include "sim/scenario/algorithm_registry.hpp"
#include "sim/scenario/capability_table.hpp"

namespace dlsim::cli {

void add_algorithms_command(CLI::App& app, std::ostream& out) {
  app.add_subcommand("algorithms", "List the algorithms and what each can run with")
      ->callback([&out] {
        for (const AlgorithmDescriptor* d : algorithm_descriptors())
          out << fmt::format("{:<16}{}\n", d->name(), d->summary());
        out << "\n" << capability_table();
      });
}

}  // namespace dlsim::cli
