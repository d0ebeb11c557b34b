#include "models/data/synthetic.hpp"

#include <doctest/doctest.h>

#include "data_test_files.hpp"

using namespace dlsim::models;
using namespace dlsim::models::testing;

namespace {

SyntheticSpec image_spec() {
  SyntheticSpec spec;
  spec.num_classes = 3;
  spec.height = 28;
  spec.width = 28;
  spec.train_count = 60;
  spec.test_count = 30;
  return spec;
}

bool same(const DatasetSplit& a, const DatasetSplit& b) {
  return a.train.features == b.train.features && a.test.features == b.test.features &&
         a.train.labels == b.train.labels && a.test.labels == b.test.labels;
}

}  // namespace

TEST_CASE("Gaussian clusters have the requested shape and labels i mod k") {
  const DatasetSplit d = make_gaussian_clusters(image_spec(), 1);
  CHECK(d.train.sample_dim() == 784);
  CHECK(d.train.features.rows() == 784);
  CHECK(d.train.features.cols() == 60);
  CHECK(d.test.features.cols() == 30);
  CHECK(d.train.height == 28);
  CHECK(d.train.num_classes == 3);
  CHECK(d.train.name == "synthetic-clusters");
  for (size_t i = 0; i < 60; ++i) CHECK(d.train.labels[i] == i % 3);
}

TEST_CASE("without noise every cluster sample is its centre, at distance separation") {
  SyntheticSpec spec = image_spec();
  spec.noise = 0.0;
  spec.separation = 2.5;
  const DatasetSplit d = make_gaussian_clusters(spec, 4);
  for (Eigen::Index i = 0; i < 60; ++i) {
    CHECK(d.train.features.col(i).norm() == doctest::Approx(2.5).epsilon(1e-5));
    CHECK(d.train.features.col(i) == d.train.features.col(i % 3));  // same class, same centre
  }
  CHECK(d.test.features.col(4) == d.train.features.col(1));  // test shares the centres
}

TEST_CASE("synthetic data is the same for a seed and different for another") {
  const SyntheticSpec spec = image_spec();
  CHECK(same(make_gaussian_clusters(spec, 5), make_gaussian_clusters(spec, 5)));
  CHECK_FALSE(same(make_gaussian_clusters(spec, 5), make_gaussian_clusters(spec, 6)));
  CHECK(same(make_teacher_dataset(spec, 5), make_teacher_dataset(spec, 5)));
  CHECK_FALSE(same(make_teacher_dataset(spec, 5), make_teacher_dataset(spec, 6)));
}

TEST_CASE("teacher labels use every class on a flat input") {
  SyntheticSpec spec;
  spec.num_classes = 4;
  spec.width = 16;
  spec.train_count = 400;
  spec.test_count = 100;
  const DatasetSplit d = make_teacher_dataset(spec, 3);
  CHECK(d.train.sample_dim() == 16);
  std::vector<int> counts(4, 0);
  for (uint8_t label : d.train.labels) ++counts.at(label);
  for (int c : counts) CHECK(c > 0);
}

TEST_CASE("a synthetic spec that cannot generate data is an input error") {
  SyntheticSpec spec;
  spec.num_classes = 1;
  CHECK(input_error([&] { make_gaussian_clusters(spec, 0); }) ==
        "synthetic dataset: num_classes: must be in [2, 256]");
  spec = SyntheticSpec{};
  spec.noise = -1.0;
  CHECK(input_error([&] { make_gaussian_clusters(spec, 0); }) ==
        "synthetic dataset: noise: must be >= 0");
}
