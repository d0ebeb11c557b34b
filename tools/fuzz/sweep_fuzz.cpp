// Fuzzes the sweep file loader: the input is a sweep file, expanded and validated by load_sweep
// as `dlsim sweep` does. Its base scenario sits beside it as base.json: a small valid scenario
// (scenarios/smoke/quadratic-detsgrad.json: no data to load), or, when the input holds a NUL
// byte, the bytes after it, so mutations reach the interplay of a base and its variations.
#include <fstream>
#include <iterator>

#include "sim/sweep/sweep_spec.hpp"
#include "tools/fuzz/fuzz_file.hpp"

namespace {

const std::string& default_base() {
  static const std::string text = [] {
    std::ifstream in(DLSIM_SOURCE_DIR "/scenarios/smoke/quadratic-detsgrad.json");
    if (!in) std::abort();
    return std::string(std::istreambuf_iterator<char>(in), {});
  }();
  return text;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dlsim;
  const std::string_view input = fuzz::as_text(data, size);
  const size_t nul = input.find('\0');
  fuzz::write_file("base.json",
                   nul == std::string_view::npos ? default_base() : input.substr(nul + 1));
  const std::string path = fuzz::write_file("sweep.json", input.substr(0, nul));
  fuzz::expect_input_errors_only([&] { (void)load_sweep(path); });
  return 0;
}
