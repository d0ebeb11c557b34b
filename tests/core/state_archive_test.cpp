#include "sim/core/state_archive.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "scratch_file.hpp"
#include "sim/core/error.hpp"

using namespace dlsim;

namespace {

std::string scratch(const std::string& name) {
  return testing::scratch_file("state_archive", name);
}

// A part that lists its fields once, with a length this run knows and a derived value.
struct Part {
  int64_t count = 0;
  std::string name;
  std::vector<uint32_t> per_agent;
  std::vector<double> free_length;
  double derived = 0.0;  // not saved: the sum of free_length

  void archive(StateArchive& ar) {
    ar.section(0x50415254);
    ar.value(count);
    ar.string(name);
    ar.sized_vector(per_agent, "another number of agents");
    ar.vector(free_length);
    if (!ar.loading()) return;
    derived = 0.0;
    for (double v : free_length) derived += v;
  }
};

void save(const Part& part, const std::string& path) {
  StateWriter out(path);
  StateArchive ar(out);
  save_part(part, ar);
  out.finish();
}

}  // namespace

TEST_CASE("a part described once loads back what it saved, and rebuilds what it derives") {
  const Part saved{-3, "ring", {4, 5, 6}, {0.5, 0.25}, 0.0};
  const std::string path = scratch("part.bin");
  save(saved, path);
  Part loaded;
  loaded.per_agent.resize(3);
  StateReader in(path);
  StateArchive ar(in);
  CHECK(ar.loading());
  loaded.archive(ar);
  CHECK_NOTHROW(in.finish());
  CHECK(loaded.count == -3);
  CHECK(loaded.name == "ring");
  CHECK(loaded.per_agent == std::vector<uint32_t>{4, 5, 6});
  CHECK(loaded.free_length == std::vector<double>{0.5, 0.25});
  CHECK(loaded.derived == 0.75);
}

TEST_CASE("a loading archive refuses a list of another length, naming what differs") {
  const std::string path = scratch("other.bin");
  save(Part{1, "a", {1, 2}, {}, 0.0}, path);
  Part loaded;
  loaded.per_agent.resize(3);
  StateReader in(path);
  StateArchive ar(in);
  // The message names the file and the byte after the list: 4 + 8 + (8 + 1) + (8 + 2 * 4).
  CHECK_THROWS_WITH_AS(loaded.archive(ar),
                       (path + ": damaged checkpoint at byte 37: another number of agents").c_str(),
                       InputError);
}
