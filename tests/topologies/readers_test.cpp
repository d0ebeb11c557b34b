// Edge-list and DOT files: round trips through the writers, and every malformed input is an
// InputError naming the file (and the line, for edge lists).
#include "topologies/readers.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/core/error.hpp"
#include "topologies/generators.hpp"
#include "topologies/writers.hpp"

using namespace dlsim;
using namespace dlsim::topo;

namespace {

// A file under the build folder; each test uses its own names, so parallel runs never clash.
std::string write_file(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::path(DLSIM_BINARY_DIR) / "test-files" / "topologies";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

Graph sample_graph() {
  TopologySpec s;
  s.kind = TopologyKind::kRing;
  s.n = 6;
  s.latency = {SimTime::from_us(100), SimTime::from_ms(3)};
  s.bandwidth_bps = {1000000, 900000000};
  return build_topology(s, 4);
}

void check_same(const FileGraph& read, const Graph& g) {
  CHECK(read.node_count == g.node_count());
  REQUIRE(read.edges.size() == g.edges().size());
  for (size_t i = 0; i < read.edges.size(); ++i) {
    const Edge& e = g.edges()[i];
    CHECK(read.edges[i] == FileEdge{e.u, e.v, e.latency, e.bandwidth_bps});
  }
}

std::string written(void (*write)(const Graph&, std::ostream&), const Graph& g) {
  std::ostringstream out;
  write(g, out);
  return out.str();
}

}  // namespace

TEST_CASE("an edge list round-trips through write_edge_list") {
  const Graph g = sample_graph();
  check_same(read_edge_list(write_file("round.txt", written(write_edge_list, g)), 0), g);
}

TEST_CASE("a DOT file round-trips through write_dot") {
  const Graph g = sample_graph();
  check_same(read_dot(write_file("round.dot", written(write_dot, g)), 0), g);
}

TEST_CASE("edge lists skip comments and blank lines and leave missing values unset") {
  const std::string path = write_file("comments.txt",
                                      "# header\n\n2 0  # trailing\n0 1 5ms\n"
                                      "  1 2 1us 2Gbps\n");
  const FileGraph f = read_edge_list(path, 0);
  CHECK(f.node_count == 3);
  REQUIRE(f.edges.size() == 3);
  CHECK(f.edges[0] == FileEdge{0, 1, SimTime::from_ms(5), std::nullopt});
  CHECK(f.edges[1] == FileEdge{0, 2, std::nullopt, std::nullopt});
  CHECK(f.edges[2] == FileEdge{1, 2, SimTime::from_us(1), 2000000000});
}

TEST_CASE("malformed edge-list lines name the file and line") {
  const auto error_of = [](const std::string& name, const std::string& text, uint32_t n = 0) {
    const std::string path = write_file(name, text);
    try {
      read_edge_list(path, n);
    } catch (const InputError& e) {
      return std::string(e.what()).substr(path.size());
    }
    return std::string("no error");
  };
  CHECK(error_of("bad_node.txt", "0 1\n1 x\n") ==
        ":2: expected a node id (an integer >= 0), got \"x\"");
  CHECK(error_of("extra.txt", "0 1\n\n1 2 3ms 1Gbps x\n") ==
        ":3: expected \"u v [latency] [bandwidth]\", got 5 fields");
  CHECK(error_of("bad_latency.txt", "0 1 2\n") ==
        ":1: expected a duration such as \"2ms\", got \"2\"");
  CHECK(error_of("negative.txt", "0 1 -1ms\n") ==
        ":1: a duration must not be negative, got \"-1ms\"");
  CHECK(error_of("bad_rate.txt", "0 1 1ms 10MB\n") ==
        ":1: expected a rate such as \"10Mbps\", got \"10MB\"");
  CHECK(error_of("loop.txt", "0 1\n2 2\n") == ":2: self-loop at node 2");
  CHECK(error_of("dup.txt", "0 1\n1 2\n1 0\n") == ":3: duplicate edge 0 -- 1 (first on line 1)");
  CHECK(error_of("range.txt", "0 1\n1 4\n", 4) ==
        ":2: node 4 is outside 0..3 (the topology has 4 nodes)");
  CHECK(error_of("huge.txt", "0 4000000000\n") ==
        ":1: node 4000000000 is above the limit of 1000000 nodes");
  CHECK(error_of("one.txt", "0\n") == ":1: expected \"u v [latency] [bandwidth]\", got 1 fields");
  CHECK(error_of("empty.txt", "# nothing\n") == ": the file holds no edge");
}

TEST_CASE("a missing file is an input error naming it") {
  CHECK_THROWS_WITH_AS(read_edge_list("/nonexistent/net.txt", 0),
                       "/nonexistent/net.txt: cannot open the file", InputError);
  CHECK_THROWS_AS(read_dot("/nonexistent/net.dot", 0), InputError);
}

TEST_CASE("malformed DOT files name the file") {
  const auto error_of = [](const std::string& name, const std::string& text) {
    const std::string path = write_file(name, text);
    try {
      read_dot(path, 0);
    } catch (const InputError& e) {
      return std::string(e.what()).substr(path.size());
    }
    return std::string("no error");
  };
  CHECK(error_of("syntax.dot", "graph { 0 -- ; }").rfind(": ", 0) == 0);
  CHECK(error_of("syntax.dot", "graph { 0 -- ; }") != "no error");
  CHECK(error_of("directed.dot", "digraph { 0 -> 1; }").find("directed graph") !=
        std::string::npos);
  CHECK(error_of("names.dot", "graph { a -- b; }") ==
        ": node \"a\": node ids must be the integers 0..n-1");
  CHECK(error_of("loop.dot", "graph { 0 -- 1; 1 -- 1; }") == ": edge 1 -- 1: self-loop at node 1");
  CHECK(error_of("dup.dot", "graph { 0 -- 1; 1 -- 0; }") == ": edge 0 -- 1: duplicate edge");
  CHECK(error_of("unit.dot", "graph { 0 -- 1 [latency=\"2 hours\"]; }") ==
        ": edge 0 -- 1: expected a duration such as \"2ms\", got \"2 hours\"");
}

TEST_CASE("DOT subgraphs nested past 64 levels are an input error, not a stack overflow") {
  // Shown through the dot fuzz harness: 100,000 nested subgraphs crashed Boost's recursive parser.
  const auto nested = [](int depth) {  // the graph's own braces are one level
    std::string text = "graph { ";
    for (int i = 1; i < depth; ++i) text += "subgraph { ";
    return text + "0 -- 1 " + std::string(depth, '}');
  };
  const std::string deep = write_file("deep.dot", nested(100000));
  CHECK_THROWS_WITH_AS(read_dot(deep, 0),
                       (deep + ": subgraphs nested deeper than 64 levels").c_str(), InputError);
  const std::string past = write_file("past.dot", nested(65));
  CHECK_THROWS_WITH_AS(read_dot(past, 0), doctest::Contains("nested deeper"), InputError);
  CHECK(read_dot(write_file("at-limit.dot", nested(64)), 0).edges.size() == 1);
  // Braces in quoted strings and comments are not nesting.
  const std::string braces(100, '{');
  const std::string labels = write_file(
      "braces.dot", "graph { 0 -- 1 [label=\"" + braces + "\\\"" + braces + "\"]; // " + braces +
                        "\n/* " + braces + " */\n# " + braces + "\n}");
  CHECK(read_dot(labels, 0).edges.size() == 1);
}

TEST_CASE("DOT attributes override the defaults, other attributes are ignored") {
  TopologySpec s;
  s.kind = TopologyKind::kDot;
  s.file = write_file("attrs.dot",
                      "graph g { rankdir=LR; 0 -- 1 [latency=\"4ms\", color=red]; "
                      "1 -- 2 [bandwidth=\"5Mbps\"]; }");
  s.latency = {SimTime::from_ms(9), SimTime::from_ms(9)};
  const Graph g = build_topology(s, 1);
  CHECK(g.node_count() == 3);
  CHECK(g.edges()[0].latency == SimTime::from_ms(4));
  CHECK(g.edges()[0].bandwidth_bps == kDefaultBandwidthBps);
  CHECK(g.edges()[1].latency == SimTime::from_ms(9));
  CHECK(g.edges()[1].bandwidth_bps == 5000000);
}

TEST_CASE("a disconnected graph from a file is an input error naming the file") {
  TopologySpec s;
  s.kind = TopologyKind::kEdgeList;
  s.file = write_file("split.txt", "0 1\n2 3\n");
  CHECK_THROWS_WITH_AS(
      build_topology(s, 1),
      (s.file + ": the graph is not connected (2 components over 4 nodes)").c_str(), InputError);
  s.n = 5;  // node 4 has no edge
  s.file = write_file("short.txt", "0 1\n1 2\n2 3\n");
  CHECK_THROWS_WITH_AS(build_topology(s, 1), doctest::Contains("(2 components over 5 nodes)"),
                       InputError);
}
