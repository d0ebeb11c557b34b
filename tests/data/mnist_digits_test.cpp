// The MNIST digit loader on small made-up digit files: the same dataset for every thread count,
// and the error of the lowest bad file, as a serial read would give.
#include "models/data/mnist_digits.hpp"

#include <doctest/doctest.h>

#include <string>

#include "data_test_files.hpp"
#include "models/data/digit_json.hpp"

using namespace dlsim::models;
using namespace dlsim::models::testing;

namespace {

// dir/d.json for d = 0..9: digit d has 6 + d samples; pixel k of file d is ((k * 7 + d) % 1000)
// thousandths, so every sample differs.
std::filesystem::path write_digit_files(std::string_view name) {
  const std::filesystem::path dir = fresh_dir(name);
  for (int d = 0; d < 10; ++d) {
    std::string text = R"({"data": [)";
    const size_t values = (6 + d) * kDigitPixels;
    for (size_t k = 0; k < values; ++k)
      text += fmt::format("{}0.{:03}", k ? "," : "", (k * 7 + d) % 1000);
    write_file(dir / fmt::format("{}.json", d), text + "]}\n");
  }
  return dir;
}

}  // namespace

TEST_CASE("MNIST digits: the same train and test sets for 1, 2 and 3 threads") {
  const auto dir = write_digit_files("mnist-threads");
  const DatasetSplit serial = load_mnist_digits(dir);
  CHECK(serial.train.size() + serial.test.size() == 6 * 10 + 45);
  for (unsigned threads : {2u, 3u}) {
    dlsim::ThreadPool pool(threads);
    const DatasetSplit parallel = load_mnist_digits(dir, pool);
    CHECK(parallel.train.labels == serial.train.labels);
    CHECK(parallel.test.labels == serial.test.labels);
    CHECK(parallel.train.features == serial.train.features);
    CHECK(parallel.test.features == serial.test.features);
  }
}

TEST_CASE("MNIST digits: with several bad files, the lowest digit's error, for any thread count") {
  const auto dir = write_digit_files("mnist-bad");
  write_file(dir / "3.json", R"({"data": [2]})");
  write_file(dir / "8.json", R"({"data": [0.5)");
  std::filesystem::remove(dir / "9.json");
  const std::string expected = (dir / "3.json").string() + ": byte 10: value 2 is outside [0, 1]";
  CHECK(input_error([&] { load_mnist_digits(dir); }) == expected);
  for (unsigned threads : {2u, 3u, 10u}) {
    dlsim::ThreadPool pool(threads);
    CHECK(input_error([&] { load_mnist_digits(dir, pool); }) == expected);
  }
}
