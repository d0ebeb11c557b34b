// Fuzzes the GraphViz DOT topology reader: Boost's read_graphviz, then dlsim's checks of node
// ids and the latency and bandwidth attributes. node_count 0: the count comes from the file.
#include "tools/fuzz/fuzz_file.hpp"
#include "topologies/readers.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dlsim;
  const std::string path = fuzz::write_file("graph.dot", fuzz::as_text(data, size));
  fuzz::expect_input_errors_only([&] { (void)topo::read_dot(path, 0); });
  return 0;
}
