#include "topologies/readers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/graphviz.hpp>
#include <charconv>
#include <fstream>
#include <map>
#include <sstream>
#include <utility>

#include "sim/core/error.hpp"
#include "sim/core/units.hpp"
#include "topologies/topology_spec.hpp"

namespace dlsim::topo {
namespace {

std::string read_whole_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open the file", path));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::optional<uint32_t> parse_node(std::string_view text) {
  uint32_t value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

std::vector<std::string_view> split_words(std::string_view line) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (true) {
    i = line.find_first_not_of(" \t\r", i);
    if (i == std::string_view::npos) return words;
    const size_t end = std::min(line.find_first_of(" \t\r", i), line.size());
    words.push_back(line.substr(i, end - i));
    i = end;
  }
}

// Validates and collects edges. `line` is the edge's line in an edge list, 0 for a DOT edge
// (Boost does not report where an edge was); errors name the place.
class EdgeCollector {
 public:
  EdgeCollector(std::string path, uint32_t node_count) : path_(std::move(path)), n_(node_count) {}

  void add(FileEdge e, int line) {
    const auto fail = [&](const std::string& msg) {
      if (line > 0) return InputError(fmt::format("{}:{}: {}", path_, line, msg));
      return InputError(fmt::format("{}: edge {} -- {}: {}", path_, e.u, e.v, msg));
    };
    if (e.u == e.v) throw fail(fmt::format("self-loop at node {}", e.u));
    for (uint32_t node : {e.u, e.v})
      if (const auto problem = range_problem(node)) throw fail(*problem);
    if (e.u > e.v) std::swap(e.u, e.v);
    const auto [it, fresh] = first_line_.emplace(std::pair(e.u, e.v), line);
    if (!fresh)
      throw fail(
          line > 0 ? fmt::format("duplicate edge {} -- {} (first on line {})", e.u, e.v, it->second)
                   : std::string("duplicate edge"));
    edges_.push_back(e);
  }

  /// A DOT node, which may have no edge: it still counts towards n.
  void add_node(uint32_t node) {
    if (const auto problem = range_problem(node))
      throw InputError(fmt::format("{}: {}", path_, *problem));
    max_node_ = std::max(max_node_, node);
  }

  FileGraph finish() {
    if (edges_.empty()) throw InputError(fmt::format("{}: the file holds no edge", path_));
    std::sort(edges_.begin(), edges_.end(), [](const FileEdge& a, const FileEdge& b) {
      return std::pair(a.u, a.v) < std::pair(b.u, b.v);
    });
    uint32_t n = std::max(n_, max_node_ + 1);
    for (const FileEdge& e : edges_) n = std::max(n, e.v + 1);
    return FileGraph{n, std::move(edges_)};
  }

 private:
  // Without a node count, ids are still capped: n = max id + 1 sizes every per-node array.
  std::optional<std::string> range_problem(uint32_t node) const {
    if (n_ > 0 && node >= n_)
      return fmt::format("node {} is outside 0..{} (the topology has {} nodes)", node, n_ - 1, n_);
    if (node >= kMaxNodes)
      return fmt::format("node {} is above the limit of {} nodes", node, kMaxNodes);
    return std::nullopt;
  }

  std::string path_;
  uint32_t n_;
  uint32_t max_node_ = 0;
  std::vector<FileEdge> edges_;
  std::map<std::pair<uint32_t, uint32_t>, int> first_line_;
};

FileEdge parse_edge_line(const std::vector<std::string_view>& words) {
  if (words.size() < 2 || words.size() > 4)
    throw InputError(
        fmt::format("expected \"u v [latency] [bandwidth]\", got {} fields", words.size()));
  FileEdge e;
  for (int i = 0; i < 2; ++i) {
    const auto node = parse_node(words[i]);
    if (!node)
      throw InputError(fmt::format("expected a node id (an integer >= 0), got \"{}\"", words[i]));
    (i == 0 ? e.u : e.v) = *node;
  }
  if (words.size() >= 3) e.latency = parse_duration(words[2]);
  if (words.size() == 4) e.bandwidth_bps = parse_rate_bps(words[3]);
  return e;
}

}  // namespace

FileGraph read_edge_list(const std::string& path, uint32_t node_count) {
  std::istringstream text(read_whole_file(path));
  EdgeCollector edges(path, node_count);
  std::string line;
  for (int line_no = 1; std::getline(text, line); ++line_no) {
    const auto words = split_words(std::string_view(line).substr(0, line.find('#')));
    if (words.empty()) continue;
    FileEdge e;
    try {
      e = parse_edge_line(words);
    } catch (const InputError& err) {
      throw InputError(fmt::format("{}:{}: {}", path, line_no, err.what()));
    }
    edges.add(e, line_no);
  }
  return edges.finish();
}

namespace {

struct DotNode {
  std::string id;
};
struct DotEdge {
  std::string latency;  // empty: not given
  std::string bandwidth;
};
using DotGraph =
    boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, DotNode, DotEdge>;

// Boost's messages may span lines; an InputError is one line.
std::string one_line(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

// Boost's read_graphviz parses nested subgraphs ("{ ... }") recursively: a file of a hundred
// thousand '{' exhausts the stack (a crash, not an error). Topologies nest a few levels at most.
constexpr int kMaxDotDepth = 64;

// Throws InputError when braces nest deeper than kMaxDotDepth. Braces in quoted strings (record
// labels such as "{a|{b|c}}") and in comments (//, /* */, '#' lines) do not count.
void check_dot_depth(std::string_view text, const std::string& path) {
  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const char next = i + 1 < text.size() ? text[i + 1] : '\0';
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\') ++i;  // \" does not end the string
    } else if ((c == '/' && next == '/') || (c == '#' && (i == 0 || text[i - 1] == '\n'))) {
      i = std::min(text.find('\n', i), text.size());
    } else if (c == '/' && next == '*') {
      const size_t end = text.find("*/", i + 2);
      i = end == std::string_view::npos ? text.size() : end + 1;
    } else if (c == '{' && ++depth > kMaxDotDepth) {
      throw InputError(
          fmt::format("{}: subgraphs nested deeper than {} levels", path, kMaxDotDepth));
    } else if (c == '}') {
      depth = std::max(depth - 1, 0);
    }
  }
}

DotGraph parse_dot_text(const std::string& path) {
  DotGraph g;
  boost::dynamic_properties dp(boost::ignore_other_properties);
  dp.property("node_id", get(&DotNode::id, g));
  dp.property("latency", get(&DotEdge::latency, g));
  dp.property("bandwidth", get(&DotEdge::bandwidth, g));
  const std::string text = read_whole_file(path);
  check_dot_depth(text, path);
  try {
    boost::read_graphviz(text, g, dp, "node_id");
  } catch (const boost::graph_exception& e) {
    throw InputError(fmt::format("{}: {}", path, one_line(e.what())));
  } catch (const boost::dynamic_property_exception& e) {
    throw InputError(fmt::format("{}: {}", path, one_line(e.what())));
  }
  return g;
}

}  // namespace

FileGraph read_dot(const std::string& path, uint32_t node_count) {
  const DotGraph g = parse_dot_text(path);
  EdgeCollector edges(path, node_count);
  std::vector<uint32_t> id(num_vertices(g));
  for (size_t v = 0; v < id.size(); ++v) {
    const auto node = parse_node(g[v].id);
    if (!node)
      throw InputError(
          fmt::format("{}: node \"{}\": node ids must be the integers 0..n-1", path, g[v].id));
    id[v] = *node;
    edges.add_node(*node);
  }
  for (const auto& e : boost::make_iterator_range(boost::edges(g))) {
    FileEdge fe{id[source(e, g)], id[target(e, g)], std::nullopt, std::nullopt};
    try {
      if (!g[e].latency.empty()) fe.latency = parse_duration(g[e].latency);
      if (!g[e].bandwidth.empty()) fe.bandwidth_bps = parse_rate_bps(g[e].bandwidth);
    } catch (const InputError& err) {
      throw InputError(fmt::format("{}: edge {} -- {}: {}", path, fe.u, fe.v, err.what()));
    }
    edges.add(fe, 0);
  }
  return edges.finish();
}

}  // namespace dlsim::topo
