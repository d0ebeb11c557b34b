// Fuzzes the edge-list topology reader ("u v [latency] [bandwidth]" per line). node_count 0:
// the node count comes from the file, which reaches the most code (ids up to the node cap).
#include "tools/fuzz/fuzz_file.hpp"
#include "topologies/readers.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dlsim;
  const std::string path = fuzz::write_file("graph.txt", fuzz::as_text(data, size));
  fuzz::expect_input_errors_only([&] { (void)topo::read_edge_list(path, 0); });
  return 0;
}
