// Generators for the synthetic datasets described in the header.
#include "models/data/synthetic.hpp"

#include <cmath>
#include <string>

#include "models/data/huge_pages.hpp"
#include "sim/core/error.hpp"
#include "sim/core/random.hpp"

namespace dlsim::models {
namespace {

Dataset empty_dataset(const SyntheticSpec& spec, const char* name, uint32_t count) {
  Dataset data;
  data.name = name;
  data.channels = spec.channels;
  data.height = spec.height;
  data.width = spec.width;
  data.num_classes = spec.num_classes;
  data.labels.resize(count);
  return data;
}

// (rows, cols) of independent N(0, stddev^2) draws, filled column by column.
Eigen::MatrixXf normal_matrix(Eigen::Index rows, Eigen::Index cols, double stddev,
                              RandomStream& rng) {
  Eigen::MatrixXf m = allocate_features(rows, cols);
  for (Eigen::Index j = 0; j < cols; ++j)
    for (Eigen::Index i = 0; i < rows; ++i) m(i, j) = static_cast<float>(rng.normal(0.0, stddev));
  return m;
}

Dataset clusters(const SyntheticSpec& spec, const Eigen::MatrixXf& centres, uint32_t count,
                 RandomStream rng) {
  Dataset data = empty_dataset(spec, "synthetic-clusters", count);
  data.features =
      normal_matrix(static_cast<Eigen::Index>(data.sample_dim()), count, spec.noise, rng);
  for (uint32_t i = 0; i < count; ++i) {
    data.labels[i] = static_cast<uint8_t>(i % spec.num_classes);
    data.features.col(i) += centres.col(data.labels[i]);
  }
  return data;
}

// Teacher logits (classes, count) = W2 tanh(W1 x), before the balancing bias.
Eigen::MatrixXf teacher_logits(const Eigen::MatrixXf& w1, const Eigen::MatrixXf& w2,
                               const Eigen::MatrixXf& x) {
  const Eigen::MatrixXf hidden = (w1 * x).array().tanh().matrix();
  return w2 * hidden;
}

Dataset teacher_split(const SyntheticSpec& spec, const Eigen::MatrixXf& logits,
                      const Eigen::VectorXf& bias, Eigen::MatrixXf x) {
  Dataset data = empty_dataset(spec, "synthetic-teacher", static_cast<uint32_t>(x.cols()));
  data.features = std::move(x);
  for (Eigen::Index i = 0; i < logits.cols(); ++i) {
    Eigen::Index best = 0;  // ties go to the lowest class
    (logits.col(i) + bias).maxCoeff(&best);
    data.labels[static_cast<size_t>(i)] = static_cast<uint8_t>(best);
  }
  return data;
}

}  // namespace

void validate_synthetic_spec(const SyntheticSpec& spec) {
  auto reject = [](const char* field, const std::string& why) {
    throw InputError(fmt::format("synthetic dataset: {}: {}", field, why));
  };
  if (spec.num_classes < 2 || spec.num_classes > 256) reject("num_classes", "must be in [2, 256]");
  if (spec.channels == 0 || spec.height == 0 || spec.width == 0) reject("shape", "must be >= 1");
  if (spec.train_count == 0) reject("train_count", "must be >= 1");
  if (spec.test_count == 0) reject("test_count", "must be >= 1");
  if (!(spec.separation >= 0.0)) reject("separation", "must be >= 0");
  if (!(spec.noise >= 0.0)) reject("noise", "must be >= 0");
  if (spec.teacher_hidden == 0) reject("teacher_hidden", "must be >= 1");
}

DatasetSplit make_gaussian_clusters(const SyntheticSpec& spec, uint64_t seed) {
  validate_synthetic_spec(spec);
  const auto dim = static_cast<Eigen::Index>(spec.channels) * spec.height * spec.width;
  RandomStream centre_rng(seed, "synthetic-centres", 0);
  Eigen::MatrixXf centres = normal_matrix(dim, spec.num_classes, 1.0, centre_rng);
  for (Eigen::Index c = 0; c < centres.cols(); ++c) {
    centres.col(c) *= static_cast<float>(spec.separation) / centres.col(c).norm();
  }
  return {clusters(spec, centres, spec.train_count, RandomStream(seed, "synthetic-train", 0)),
          clusters(spec, centres, spec.test_count, RandomStream(seed, "synthetic-test", 0))};
}

DatasetSplit make_teacher_dataset(const SyntheticSpec& spec, uint64_t seed) {
  validate_synthetic_spec(spec);
  const auto dim = static_cast<Eigen::Index>(spec.channels) * spec.height * spec.width;
  RandomStream teacher(seed, "synthetic-teacher", 0);
  const Eigen::MatrixXf w1 = normal_matrix(spec.teacher_hidden, dim, 1.0 / std::sqrt(dim), teacher);
  const Eigen::MatrixXf w2 = normal_matrix(spec.num_classes, spec.teacher_hidden,
                                           1.0 / std::sqrt(spec.teacher_hidden), teacher);
  RandomStream train_rng(seed, "synthetic-train", 0), test_rng(seed, "synthetic-test", 0);
  Eigen::MatrixXf x_train = normal_matrix(dim, spec.train_count, 1.0, train_rng);
  Eigen::MatrixXf x_test = normal_matrix(dim, spec.test_count, 1.0, test_rng);
  const Eigen::MatrixXf train_logits = teacher_logits(w1, w2, x_train);
  const Eigen::MatrixXf test_logits = teacher_logits(w1, w2, x_test);
  const Eigen::VectorXf bias = -train_logits.rowwise().mean();
  return {teacher_split(spec, train_logits, bias, std::move(x_train)),
          teacher_split(spec, test_logits, bias, std::move(x_test))};
}

}  // namespace dlsim::models
