#include <doctest/doctest.h>

#include <Eigen/Core>
#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "models/model.hpp"
#include "test_data.hpp"

using namespace dlsim;
using namespace dlsim::models;

namespace {

// Records what a step reports: each parameter's value at the moment it was declared final, and
// how many times it was declared.
class ProgressRecorder final : public StepProgress {
 public:
  explicit ProgressRecorder(Eigen::VectorXf& x)
      : x_(x), told_(x.size()), times_(static_cast<size_t>(x.size()), 0) {}
  void finished(Eigen::Index begin, Eigen::Index end) override {
    ++calls;
    REQUIRE(begin < end);
    for (Eigen::Index i = begin; i < end; ++i) {
      ++times_[static_cast<size_t>(i)];
      told_[i] = x_[i];
    }
  }
  bool each_told_once() const {
    return std::all_of(times_.begin(), times_.end(), [](int t) { return t == 1; });
  }
  const Eigen::VectorXf& told() const { return told_; }
  int calls = 0;

 private:
  Eigen::VectorXf& x_;
  Eigen::VectorXf told_;
  std::vector<int> times_;
};

bool same_bits(const Eigen::VectorXf& a, const Eigen::VectorXf& b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), sizeof(float) * static_cast<size_t>(a.size())) == 0;
}

struct StepCase {
  const char* name;
  ModelSpec spec;
  InputShape input;
  Dataset data;
  int min_calls;  // reports the step must make at least: finer than one per layer where tested
};

}  // namespace

TEST_CASE("sgd_step tells every parameter once, after its last write, and changes nothing") {
  RandomStream data_rng(21, "data", 0);
  Dataset digits = testing::sparse_images(4, 96, 40, 0.2, data_rng);
  Dataset dense = digits;
  dense.background = 1e30f;  // no pixel takes it: the dense products
  std::vector<StepCase> cases;
  // 300 hidden units: two row chunks of the sparse kernels, and 8 column blocks of 13 that it
  // reports one by one (the other layers report once each).
  cases.push_back({"sparse input", ModelSpec{MlpSpec{{300, 20}, Activation::kRelu, {}}},
                   InputShape{1, 1, 96, 4}, digits, 10});
  cases.push_back({"dense input", ModelSpec{MlpSpec{{300, 20}, Activation::kRelu, {}}},
                   InputShape{1, 1, 96, 4}, dense, 3});
  cases.push_back({"cnn", ModelSpec{CnnSpec{{LayerSpec::conv(3, 3, 1, 1), LayerSpec::relu(),
                                             LayerSpec::flatten(), LayerSpec::dense(4)}}},
                   InputShape{1, 8, 12, 4}, digits, 2});
  cases.push_back({"quadratic", ModelSpec{QuadraticSpec{50, 0.1}}, InputShape{}, Dataset{}, 1});
  for (const StepCase& c : cases) {
    CAPTURE(std::string(c.name));
    RandomStream build_rng(22, "model", 0);
    Model model = Model::build(c.spec, c.input, build_rng);
    Eigen::VectorXf x(model.parameter_count());
    model.initialize(x, build_rng);
    Batch batch;
    if (c.data.size() > 0) {
      std::vector<uint32_t> idx(32);
      std::iota(idx.begin(), idx.end(), 0u);
      batch.gather(c.data, idx);
    }
    Eigen::VectorXf untold = x;
    RandomStream a(23, "train", 0), b(23, "train", 0);
    model.sgd_step(untold, 0.05f, batch, a);
    ProgressRecorder recorder(x);
    model.sgd_step(x, 0.05f, batch, b, &recorder);
    CHECK(recorder.each_told_once());
    CHECK(same_bits(recorder.told(), x));  // nothing written after it was told
    CHECK(same_bits(x, untold));           // telling changes no result
    CHECK(recorder.calls >= c.min_calls);
  }
}
