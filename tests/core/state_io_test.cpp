#include "sim/core/state_io.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <vector>

#include "scratch_file.hpp"
#include "sim/core/error.hpp"
#include "sim/core/random.hpp"
#include "sim/core/simulator.hpp"
#include "sim/core/state_archive.hpp"

using namespace dlsim;
namespace fs = std::filesystem;

namespace {

std::string scratch(const std::string& name) { return testing::scratch_file("state_io", name); }

// A file with values of several kinds, longer than one hashing block (64 KiB).
std::string write_sample(const std::string& name) {
  const std::string path = scratch(name);
  StateWriter out(path);
  out.section(0x1234);
  out.put<int64_t>(-7);
  out.put<double>(0.25);
  out.put_string("hello");
  std::vector<float> floats(50000);
  for (size_t i = 0; i < floats.size(); ++i) floats[i] = static_cast<float>(i) * 0.5f;
  out.put_vector(floats);
  out.section(0x5678);
  out.finish();
  return path;
}

std::string error_of(const std::string& path) {
  try {
    StateReader in(path);
    in.section(0x1234);
    in.get<int64_t>();
    in.get<double>();
    in.get_string();
    in.get_vector<float>();
    in.section(0x5678);
    in.finish();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a state file reads back the values written, across hashing blocks") {
  const std::string path = write_sample("sample.bin");
  StateReader in(path);
  in.section(0x1234);
  CHECK(in.get<int64_t>() == -7);
  CHECK(in.get<double>() == 0.25);
  CHECK(in.get_string() == "hello");
  const std::vector<float> floats = in.get_vector<float>();
  REQUIRE(floats.size() == 50000);
  CHECK(floats[49999] == 49999 * 0.5f);
  in.section(0x5678);
  CHECK_NOTHROW(in.finish());
}

TEST_CASE("a truncated or damaged state file is refused, naming the file and the byte") {
  const std::string path = write_sample("damaged.bin");
  CHECK(error_of(path).empty());
  const auto size = fs::file_size(path);
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(size / 2));
    char c = 0;
    f.read(&c, 1);
    f.seekp(static_cast<std::streamoff>(size / 2));
    c = static_cast<char>(c ^ 0x10);  // one bit, inside the floats
    f.write(&c, 1);
  }
  CHECK(error_of(path).starts_with(path + ": damaged checkpoint at byte "));
  CHECK(error_of(path).find("hash does not match") != std::string::npos);

  const std::string cut = write_sample("cut.bin");
  fs::resize_file(cut, size - 1000);
  CHECK(error_of(cut).starts_with(cut + ": damaged checkpoint at byte "));
}

TEST_CASE("a reader out of step with the writer stops at the next section") {
  const std::string path = write_sample("step.bin");
  StateReader in(path);
  in.section(0x1234);
  in.get<int64_t>();  // skips the double and the string
  CHECK_THROWS_WITH_AS(in.get_vector<float>(), doctest::Contains("damaged checkpoint"), InputError);
}

TEST_CASE("a random stream continues where it was saved, its spare normal included") {
  RandomStream a(1, "test", 2);
  a.normal();  // leaves a spare
  const std::string path = scratch("stream.bin");
  {
    StateWriter out(path);
    StateArchive ar(out);
    a.archive(ar);
    out.finish();
  }
  RandomStream b(99, "other", 0);
  StateReader in(path);
  StateArchive ar(in);
  b.archive(ar);
  in.finish();
  for (int i = 0; i < 5; ++i) CHECK(a.normal() == b.normal());
  CHECK(a.next_u64() == b.next_u64());
}

TEST_CASE("a simulator continues its events, clock and fingerprint where it was saved") {
  auto schedule = [](Simulator& sim) {
    for (uint32_t i = 0; i < 50; ++i)
      sim.schedule_at(SimTime::from_ns(1000 * (i % 7)), EventKind::kTimer, AgentId{i}, i);
  };
  auto drain = [](Simulator& sim, std::vector<uint32_t>& order) {
    sim.run([&](const Event& e) {
      order.push_back(e.payload);
      if (e.payload % 5 == 0)
        sim.schedule_in(SimTime::from_ns(1500), EventKind::kTimer, e.agent, e.payload + 100);
    });
  };
  Simulator whole(3);
  schedule(whole);
  std::vector<uint32_t> expected;
  drain(whole, expected);

  Simulator first(3);
  schedule(first);
  std::vector<uint32_t> order;
  first.run(
      [&](const Event& e) {
        order.push_back(e.payload);
        if (e.payload % 5 == 0)
          first.schedule_in(SimTime::from_ns(1500), EventKind::kTimer, e.agent, e.payload + 100);
      },
      SimTime::from_ns(3000));
  const std::string path = scratch("sim.bin");
  {
    StateWriter out(path);
    StateArchive ar(out);
    first.archive(ar);
    out.finish();
  }
  Simulator second(3);
  StateReader in(path);
  StateArchive ar(in);
  second.archive(ar);
  in.finish();
  CHECK(second.now() == first.now());
  drain(second, order);
  CHECK(order == expected);
  CHECK(second.fingerprint().value() == whole.fingerprint().value());
  CHECK(second.events_processed() == whole.events_processed());
}
