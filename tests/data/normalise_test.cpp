#include "models/data/normalise.hpp"

#include <doctest/doctest.h>

#include <cmath>

#include "data_test_files.hpp"
#include "models/data/load_dataset.hpp"

using namespace dlsim::models;
using namespace dlsim::models::testing;

TEST_CASE("normalisation uses the train mean and std for train and test") {
  // Train features {0, 2, 4, 6}: mean 3, population variance (9+1+1+9)/4 = 5.
  DatasetSplit split;
  split.train.name = "t";
  split.train.features.resize(2, 2);
  split.train.features << 0, 4, 2, 6;
  split.test.features.resize(1, 2);
  split.test.features << 3, 8;
  const Normalisation n = normalise_split(split);
  CHECK(n.mean == 3.0f);
  CHECK(n.stddev == doctest::Approx(std::sqrt(5.0)));
  CHECK(split.train.features(0, 0) == doctest::Approx(-3.0 / std::sqrt(5.0)));
  CHECK(split.train.features(1, 1) == doctest::Approx(3.0 / std::sqrt(5.0)));
  CHECK(split.test.features(0, 0) == 0.0f);
  CHECK(split.test.features(0, 1) == doctest::Approx(5.0 / std::sqrt(5.0)));
}

TEST_CASE("a normalised train split has mean 0 and std 1") {
  DataSpec spec;
  spec.kind = DatasetKind::kSyntheticClusters;
  spec.synthetic.train_count = 500;
  spec.synthetic.test_count = 100;
  Normalisation applied;
  const DatasetSplit d = load_dataset(spec, DataPaths{}, 42, &applied);
  const Eigen::ArrayXXd x = d.train.features.cast<double>().array();
  CHECK(x.mean() == doctest::Approx(0.0).epsilon(1e-6).scale(1.0));
  CHECK(std::sqrt(x.square().mean()) == doctest::Approx(1.0).epsilon(1e-5));
  CHECK(applied.stddev > 1.0f);  // separation 4 spreads the clusters beyond the unit noise
  spec.normalise = Normalise::kOff;
  load_dataset(spec, DataPaths{}, 42, &applied);
  CHECK(applied.mean == 0.0f);
  CHECK(applied.stddev == 1.0f);
}

TEST_CASE("a train set whose features are all equal cannot be normalised") {
  Dataset d;
  d.name = "flat";
  d.features = Eigen::MatrixXf::Constant(3, 4, 0.5f);
  CHECK(input_error([&] { compute_normalisation(d); }) ==
        "flat: cannot normalise: every train feature equals 0.5");
}
