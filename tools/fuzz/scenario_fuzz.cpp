// Fuzzes the scenario loader: the input is a scenario file, read by load_scenario as `dlsim
// validate` reads it (JSON parse with the depth bound, then every section's checks). validate
// then builds the world; that is left out here because it allocates what a valid scenario asks
// for (agents x parameters, datasets) and would measure memory, not parsing.
#include <cstdio>
#include <cstdlib>

#include "sim/scenario/load_scenario.hpp"
#include "tools/fuzz/fuzz_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dlsim;
  const std::string path = fuzz::write_file("scenario.json", fuzz::as_text(data, size));
  fuzz::expect_input_errors_only([&] {
    const ScenarioSpec spec = load_scenario(path, {});
    // load_scenario.hpp promises parse_scenario(scenario_to_json(s)) == s: a run's resolved
    // scenario.json must load again to the same scenario. Compared through JSON (no operator==).
    const nlohmann::json resolved = scenario_to_json(spec);
    const nlohmann::json again = scenario_to_json(parse_scenario(resolved, path));
    if (again != resolved) {
      std::fprintf(stderr, "resolved scenario does not round-trip:\n%s\n%s\n",
                   resolved.dump().c_str(), again.dump().c_str());
      std::abort();
    }
  });
  return 0;
}
