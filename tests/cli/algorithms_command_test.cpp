// `dlsim algorithms` and the capability table in docs/algorithms.md, both generated from the
// algorithm descriptors.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "in_process_cli.hpp"
#include "sim/scenario/algorithm_registry.hpp"
#include "sim/scenario/capability_table.hpp"

using namespace dlsim;
using namespace dlsim::testing;

TEST_CASE("dlsim algorithms lists every algorithm with its summary, then the capability table") {
  const CliResult r = run_dlsim({"algorithms"});
  CHECK(r.code == 0);
  for (const AlgorithmDescriptor* d : algorithm_descriptors()) {
    CHECK(r.out.find(std::string(d->name())) != std::string::npos);
    CHECK(r.out.find(std::string(d->summary())) != std::string::npos);
  }
  CHECK(r.out.find(capability_table()) != std::string::npos);
  CHECK(capability_table().find("| `choco` | no | yes | no | no | yes | yes | no | model |") !=
        std::string::npos);
  CHECK(capability_table().find("| `dpsgd` | yes | yes | yes | yes | yes | yes | yes | - |") !=
        std::string::npos);
}

TEST_CASE("docs/algorithms.md holds the capability table as the descriptors generate it") {
  std::ifstream in(std::string(DLSIM_SOURCE_DIR) + "/docs/algorithms.md");
  std::stringstream docs;
  docs << in.rdbuf();
  INFO("regenerate it with: build/dlsim algorithms");
  CHECK(docs.str().find(capability_table()) != std::string::npos);
}
