// `dlsim topology`: the report for the README's default job, and exit codes and error lines of
// the built binary (run as a child process, as a user would).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "binary_runner.hpp"
#include "sim/cli/app.hpp"

using dlsim::testing::BinaryRun;
using dlsim::testing::read_text;
using dlsim::testing::run_binary;

namespace {

const std::string kSource = DLSIM_SOURCE_DIR;
const std::filesystem::path& kScratch = dlsim::testing::kBinaryScratch;

std::string write_file(const std::string& name, const std::string& text) {
  std::filesystem::create_directories(kScratch);
  const std::string path = (kScratch / name).string();
  std::ofstream(path) << text;
  return path;
}

}  // namespace

TEST_CASE("dlsim topology prints the torus4x4 metrics table") {
  const std::string file = kSource + "/topologies/examples/torus4x4.json";
  const char* argv[] = {"dlsim", "topology", file.c_str()};
  std::ostringstream out, err;
  CHECK(dlsim::cli::run_cli(3, argv, out, err) == 0);
  CHECK(err.str().empty());
  CHECK(out.str() ==
        "topology      torus 4 x 4 (seed 1)\n"
        "nodes         16\n"
        "edges         32\n"
        "degree        min 4, mean 4.00, max 4\n"
        "components    1\n"
        "diameter      4 hops\n"
        "spectral gap  0.400000 (1 - |lambda_2| of the metropolis_hastings weights)\n"
        "latency       min 2ms, max 2ms\n"
        "bandwidth     min 100Mbps, max 100Mbps\n");
}

TEST_CASE("dlsim topology names a kind's own parameters after the kind, and none for a hypercube") {
  const auto first_line = [](const std::string& name, const std::string& json) {
    const std::string file = write_file(name, json);
    const char* argv[] = {"dlsim", "topology", file.c_str()};
    std::ostringstream out, err;
    REQUIRE(dlsim::cli::run_cli(3, argv, out, err) == 0);
    return out.str().substr(0, out.str().find('\n'));
  };
  CHECK(first_line("ws.json", R"({"kind": "watts_strogatz", "n": 12, "k": 4, "beta": 0.25})") ==
        "topology      watts_strogatz, k 4, beta 0.25 (seed 1)");
  CHECK(first_line("cube.json", R"({"kind": "hypercube", "dimension": 3})") ==
        "topology      hypercube (seed 1)");
}

TEST_CASE("the dlsim binary exits 0 on a good file") {
  const BinaryRun r = run_binary("good", kSource + "/topologies/examples/ring16.json");
  CHECK(r.exit_code == 2);  // no subcommand given
  const BinaryRun ok =
      run_binary("good2", "topology " + kSource + "/topologies/examples/ring16.json");
  CHECK(ok.exit_code == 0);
  CHECK(ok.out.find("nodes         16\n") != std::string::npos);
  CHECK(ok.err.empty());
}

TEST_CASE("a bad unit exits 2 with the file and pointer on one stderr line") {
  const std::string file = write_file("bad_unit.json", R"({"kind": "ring", "n": 8,
      "bandwidth": "10 MB"})");
  const BinaryRun r = run_binary("bad_unit", "topology " + file);
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err ==
        "dlsim: " + file + ": /bandwidth: expected a rate such as \"10Mbps\", got \"10 MB\"\n");
}

TEST_CASE("a missing file exits 2 naming it") {
  const BinaryRun r = run_binary("missing", "topology /nonexistent/topology.json");
  CHECK(r.exit_code == 2);
  CHECK(r.err ==
        "dlsim: /nonexistent/topology.json: cannot open the file: No such file or directory\n");
}

TEST_CASE("command-line mistakes exit 2") {
  CHECK(run_binary("no_file", "topology").exit_code == 2);
  CHECK(run_binary("bad_option", "topology x.json --frobnicate").exit_code == 2);
  CHECK(run_binary("bad_command", "frobnicate").exit_code == 2);
  const BinaryRun help = run_binary("help", "topology --help");
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("Usage: dlsim topology") != std::string::npos);
}

TEST_CASE("--dot writes the graph through a temporary file") {
  const auto dot = kScratch / "ring16.dot";
  std::filesystem::remove(dot);
  const BinaryRun r = run_binary(
      "dot", "topology " + kSource + "/topologies/examples/ring16.json --dot " + dot.string());
  CHECK(r.exit_code == 0);
  CHECK_FALSE(std::filesystem::exists(dot.string() + ".tmp"));
  const std::string text = read_text(dot);
  CHECK(text.starts_with("graph dlsim {\n"));
  CHECK(text.find("  0 -- 15 [latency=\"1ms\", bandwidth=\"1Gbps\"];\n") != std::string::npos);
  const BinaryRun bad =
      run_binary("dot_bad", "topology " + kSource +
                                "/topologies/examples/ring16.json --dot /nonexistent/x.dot");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.starts_with("dlsim: /nonexistent/x.dot.tmp: cannot write"));
}
