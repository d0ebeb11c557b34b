#include "models/parameters.hpp"

#include <doctest/doctest.h>

#include <Eigen/Core>
#include <filesystem>
#include <fstream>
#include <string>

#include "sim/core/error.hpp"

using namespace dlsim;
using namespace dlsim::models;
namespace fs = std::filesystem;

namespace {

fs::path temp_file(const std::string& name) {
  const fs::path dir = fs::path(DLSIM_BINARY_DIR) / "tests_tmp" / "models";
  fs::create_directories(dir);
  return dir / name;
}

std::string error_of(const fs::path& path, Eigen::VectorXf& into, uint64_t hash) {
  try {
    load_parameters(path, into, hash);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("parameters survive a save and load round trip bit for bit") {
  const fs::path path = temp_file("round_trip.bin");
  Eigen::VectorXf p(5);
  p << 1.5f, -2.0f, 3.25f, 1e-30f, -0.0f;
  save_parameters(path, p, 0x1234);
  CHECK(fs::file_size(path) == 32 + 5 * 4);
  CHECK_FALSE(fs::exists(path.string() + ".tmp"));
  Eigen::VectorXf q = Eigen::VectorXf::Zero(5);
  load_parameters(path, q, 0x1234);
  CHECK(std::memcmp(p.data(), q.data(), 5 * sizeof(float)) == 0);
}

TEST_CASE("loading rejects another architecture, size, format or a damaged file at its offset") {
  const fs::path path = temp_file("mismatch.bin");
  const std::string name = path.string();
  Eigen::VectorXf p = Eigen::VectorXf::Ones(4);
  save_parameters(path, p, 0xabc);
  Eigen::VectorXf q = Eigen::VectorXf::Zero(4);
  CHECK(error_of(path, q, 0xabd) == name +
                                        ": byte 16: architecture hash 0x0000000000000abc "
                                        "does not match the model's 0x0000000000000abd");
  Eigen::VectorXf longer = Eigen::VectorXf::Zero(6);
  CHECK(error_of(path, longer, 0xabc) == name + ": byte 24: 4 parameters, the model has 6");
  CHECK(q.isZero());  // a rejected file changes nothing
  fs::resize_file(path, 32 + 3 * 4 + 2);
  CHECK(error_of(path, q, 0xabc) == name + ": byte 46: the file ends after 3 of 4 parameters");
  save_parameters(path, p, 0xabc);
  {
    std::ofstream append(path, std::ios::binary | std::ios::app);
    append << 'x';
  }
  CHECK(error_of(path, q, 0xabc) == name + ": byte 48: unexpected bytes after the last parameter");
  {
    std::fstream patch(path, std::ios::binary | std::ios::in | std::ios::out);
    patch.write("NOTDLSIM", 8);
  }
  CHECK(error_of(path, q, 0xabc) ==
        name + ": byte 0: not a dlsim parameter file (magic is not DLSIMPRM)");
  CHECK(error_of(temp_file("missing.bin"), q, 0xabc).find("cannot open") != std::string::npos);
}

TEST_CASE("average_in_order is the mean of the vectors") {
  Eigen::VectorXf a(2), b(2), c(2), out;
  a << 1, 2;
  b << 3, 4;
  c << 5, 9;
  const ParamVector* all[] = {&a, &b, &c};
  average_in_order(all, out);
  CHECK(out[0] == doctest::Approx(3.0));
  CHECK(out[1] == doctest::Approx(5.0));
}
