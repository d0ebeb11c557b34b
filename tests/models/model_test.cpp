#include "models/model.hpp"

#include <doctest/doctest.h>

#include <Eigen/Core>
#include <cmath>
#include <vector>

#include "sim/core/error.hpp"
#include "test_data.hpp"

using namespace dlsim;
using namespace dlsim::models;

namespace {

const InputShape kMnist{1, 28, 28, 10};

Model build(const ModelSpec& spec, const InputShape& in = kMnist) {
  RandomStream rng(1, "model", 0);
  return Model::build(spec, in, rng);
}

double stddev(const Eigen::Ref<const Eigen::VectorXf>& v) {
  const double mean = v.cast<double>().mean();
  return std::sqrt((v.cast<double>().array() - mean).square().mean());
}

}  // namespace

TEST_CASE("parameter counts of the presets") {
  // LeNet: conv 32*25+32, conv 64*800+64, dense 3136*512+512, dense 512*10+10.
  CHECK(build(ModelSpec{lenet_spec()}).parameter_count() == 832 + 51264 + 1606144 + 5130);
  // Elastic Gossip MLP: 784*1024+1024, 2 x (1024*1024+1024), 1024*10+10.
  CHECK(build(ModelSpec{elastic_gossip_mlp_spec()}).parameter_count() ==
        803840 + 2 * 1049600 + 10250);
  CHECK(build(ModelSpec{MlpSpec{{256}, Activation::kRelu, {}}}).parameter_count() == 203530);
}

TEST_CASE("the parameter tensors are each layer's weights then its bias, tiling the vector") {
  const Model mlp = build(ModelSpec{MlpSpec{{256}, Activation::kRelu, {}}});
  std::vector<std::pair<Eigen::Index, Eigen::Index>> got;
  for (const TensorRange& t : mlp.parameter_tensors()) got.emplace_back(t.offset, t.size);
  using P = std::pair<Eigen::Index, Eigen::Index>;
  CHECK(got == std::vector<P>{{0, 784 * 256}, {200704, 256}, {200960, 2560}, {203520, 10}});
  // LeNet: two convolutions (32 5x5 filters, 64 of 32x5x5) and two dense layers, pools without
  // parameters in between.
  got.clear();
  for (const TensorRange& t : build(ModelSpec{lenet_spec()}).parameter_tensors())
    got.emplace_back(t.offset, t.size);
  CHECK(got == std::vector<P>{{0, 800}, {800, 32}, {832, 51200}, {52032, 64},
                              {52096, 1605632}, {1657728, 512}, {1658240, 5120}, {1663360, 10}});
  RandomStream rng(1, "model", 0);
  const Model quadratic = Model::build(ModelSpec{QuadraticSpec{7}}, kMnist, rng);
  REQUIRE(quadratic.parameter_tensors().size() == 1);
  CHECK(quadratic.parameter_tensors()[0].size == 7);
}

TEST_CASE("parameter tensors are named by layer kind and number, weight then bias") {
  std::vector<std::string> names;
  for (const TensorRange& t : build(ModelSpec{lenet_spec()}).parameter_tensors())
    names.push_back(t.name);
  CHECK(names == std::vector<std::string>{"conv1.weight", "conv1.bias", "conv2.weight",
                                          "conv2.bias", "dense1.weight", "dense1.bias",
                                          "dense2.weight", "dense2.bias"});
  RandomStream rng(1, "model", 0);
  CHECK(Model::build(ModelSpec{QuadraticSpec{7}}, kMnist, rng).parameter_tensors()[0].name == "x");
}

TEST_CASE("FLOPs per sample of MLP 784-256-10") {
  const Model m = build(ModelSpec{MlpSpec{{256}, Activation::kRelu, {}}});
  // Forward: 2*784*256 + 256 (dense), 256 (relu), 2*256*10 + 10 (dense) = 407050.
  CHECK(m.flops_per_sample(Phase::kEval) == 407050.0);
  // Backward: dense 2: dW 5120 + db 10 + dx 5120; relu 256; dense 1: dW 401408 + db 256, no dx.
  CHECK(m.flops_per_sample(Phase::kTrain) == 407050.0 + 10250.0 + 256.0 + 401664.0);
}

TEST_CASE("architectures that do not fit the input are input errors naming the layer") {
  CnnSpec big_kernel{{LayerSpec::conv(4, 5), LayerSpec::flatten(), LayerSpec::dense(10)}};
  CHECK_THROWS_WITH_AS(build(ModelSpec{big_kernel}, InputShape{1, 4, 4, 10}),
                       "/layers/0: conv kernel 5 with padding 0 does not fit the 1x4x4 input",
                       InputError);
  CnnSpec pool_after_dense{{LayerSpec::dense(8), LayerSpec::max_pool(2), LayerSpec::dense(10)}};
  CHECK_THROWS_WITH_AS(build(ModelSpec{pool_after_dense}),
                       "/layers/1: max_pool kernel 2 does not fit the 8x1x1 input", InputError);
  CnnSpec wrong_classes{{LayerSpec::flatten(), LayerSpec::dense(7)}};
  CHECK_THROWS_WITH_AS(build(ModelSpec{wrong_classes}),
                       "/layers: the last layer gives 7 outputs but the data has 10 classes",
                       InputError);
  CHECK_THROWS_WITH_AS(build(ModelSpec{MlpSpec{{16}, Activation::kRelu, {0.2, 1.0}}}),
                       "/dropout/1: a dropout rate must be in [0, 1), got 1", InputError);
  CHECK_THROWS_WITH_AS(build(ModelSpec{MlpSpec{{16, 0}, Activation::kRelu, {}}}),
                       "/hidden/1: a hidden layer needs at least 1 unit", InputError);
  CHECK_THROWS_WITH_AS(build(ModelSpec{QuadraticSpec{0, 0.0}}),
                       "/dim: a quadratic model needs at least 1 dimension", InputError);
}

TEST_CASE("initialisation: He normal before ReLU, Glorot normal for the output, zero biases") {
  Model m = build(ModelSpec{MlpSpec{{256}, Activation::kRelu, {}}});
  Eigen::VectorXf p(m.parameter_count());
  RandomStream rng(5, "init", 0);
  m.initialize(p, rng);
  const Eigen::Index w1 = 256 * 784, w2 = 10 * 256;
  CHECK(stddev(p.head(w1)) == doctest::Approx(std::sqrt(2.0 / 784)).epsilon(0.01));
  CHECK(p.segment(w1, 256).cwiseAbs().maxCoeff() == 0.0f);
  CHECK(stddev(p.segment(w1 + 256, w2)) == doctest::Approx(std::sqrt(2.0 / 266)).epsilon(0.05));
  CHECK(p.tail(10).cwiseAbs().maxCoeff() == 0.0f);
  Eigen::VectorXf q(m.parameter_count());
  RandomStream same(5, "init", 0);
  m.initialize(q, same);
  CHECK(p == q);
}

TEST_CASE("tanh networks get Glorot normal weights") {
  Model m = build(ModelSpec{MlpSpec{{100}, Activation::kTanh, {}}});
  Eigen::VectorXf p(m.parameter_count());
  RandomStream rng(5, "init", 0);
  m.initialize(p, rng);
  CHECK(stddev(p.head(100 * 784)) == doctest::Approx(std::sqrt(2.0 / 884)).epsilon(0.02));
}

TEST_CASE("the architecture hash tells architectures apart") {
  const Model a = build(ModelSpec{MlpSpec{{256}, Activation::kRelu, {}}});
  const Model b = build(ModelSpec{MlpSpec{{128, 128}, Activation::kRelu, {}}});
  const Model c = build(ModelSpec{MlpSpec{{256}, Activation::kRelu, {}}});
  CHECK(a.architecture_hash() != b.architecture_hash());
  CHECK(a.architecture_hash() == c.architecture_hash());
  CHECK(a.description() == "input 1x28x28\ndense 784->256\nrelu\ndense 256->10");
  const Model lenet = build(ModelSpec{lenet_spec()});  // fused layers describe their parts
  CHECK(lenet.description() ==
        "input 1x28x28\nconv 1x28x28 -> 32x28x28 kernel 5 stride 1 padding 2\nrelu\n"
        "maxpool 32x28x28 -> 32x14x14 kernel 2 stride 2\n"
        "conv 32x14x14 -> 64x14x14 kernel 5 stride 1 padding 2\nrelu\n"
        "maxpool 64x14x14 -> 64x7x7 kernel 2 stride 2\nflatten\ndense 3136->512\nrelu\n"
        "dense 512->10");
}

TEST_CASE("the whole-network gradient of a small CNN with dropout matches finite differences") {
  CnnSpec spec{{LayerSpec::conv(2, 3, 1, 1), LayerSpec::relu(), LayerSpec::max_pool(2),
                LayerSpec::flatten(), LayerSpec::dropout(0.3), LayerSpec::dense(3)}};
  Model m = build(ModelSpec{spec}, InputShape{1, 5, 5, 3});
  RandomStream data_rng(3, "data", 0);
  Dataset d = testing::gaussian_clusters(3, 25, 4, data_rng);
  Batch batch;
  const std::vector<uint32_t> all = {0, 1, 2, 3};
  batch.gather(d, all);
  Eigen::VectorXf p(m.parameter_count()), g(m.parameter_count()), unused(m.parameter_count());
  RandomStream init(3, "init", 0);
  m.initialize(p, init);
  const RandomStream dropout(3, "train", 0);
  RandomStream stream = dropout;
  m.compute_gradient(p, g, batch, stream);
  const float h = 1e-3f;
  double worst = 0.0;
  for (Eigen::Index i = 0; i < p.size(); ++i) {
    Eigen::VectorXf q = p;
    q[i] += h;
    stream = dropout;
    const double up = m.compute_gradient(q, unused, batch, stream);
    q[i] = p[i] - h;
    stream = dropout;
    const double down = m.compute_gradient(q, unused, batch, stream);
    worst = std::max(worst, std::abs((up - down) / (2.0 * h) - g[i]) / (1e-2 + std::abs(g[i])));
  }
  CHECK(worst < 1e-2);
}

TEST_CASE("evaluation batches grow only the activations, training scratch follows training") {
  // Scratch allocated and never written is resident memory once pages are huge: the backward
  // buffers are sized by training batches alone, and the input layer holds no dx scratch.
  RandomStream data_rng(31, "data", 0);
  const Dataset data = testing::gaussian_clusters(10, 784, 500, data_rng);
  Model m = build(ModelSpec{MlpSpec{{256}, Activation::kRelu, {}}});
  RandomStream rng(32, "init", 0);
  Eigen::VectorXf x(m.parameter_count());
  m.initialize(x, rng);
  std::vector<uint32_t> idx(32);
  for (uint32_t i = 0; i < 32; ++i) idx[i] = i;
  Batch batch;
  batch.gather(data, idx);
  m.sgd_step(x, 0.01f, batch, rng);
  const size_t trained = m.workspace_bytes();
  // Training, 32 samples: activations (256 + 256 + 10) and two gradient buffers of the widest
  // width backward needs (256, not the input's 784); the output layer's transposes for dx
  // (32 x 10 and 32 x 256); each layer's column sums (256 + 256 and 10 + 10); no dx scratch for
  // the input layer, and no sparse form (the data has no background).
  const size_t floats = (256 + 256 + 10) * 32 + 2 * 256 * 32 + 32 * (10 + 256) + 512 + 20;
  CHECK(trained == floats * sizeof(float));
  m.evaluate(x, data, 500, 500);
  CHECK(m.workspace_bytes() - trained == (256 + 256 + 10) * (500 - 32) * sizeof(float));
  m.sgd_step(x, 0.01f, batch, rng);
  CHECK(m.workspace_bytes() - trained == (256 + 256 + 10) * (500 - 32) * sizeof(float));
}

TEST_CASE("a network without parameters still trains: the loss has its gradient buffer") {
  RandomStream data_rng(33, "data", 0);
  const Dataset data = testing::gaussian_clusters(4, 4, 16, data_rng);
  Model m = build(ModelSpec{CnnSpec{{LayerSpec::relu()}}}, InputShape{1, 1, 4, 4});
  CHECK(m.parameter_count() == 0);
  std::vector<uint32_t> idx(8);
  for (uint32_t i = 0; i < 8; ++i) idx[i] = i;
  Batch batch;
  batch.gather(data, idx);
  Eigen::VectorXf x(0);
  RandomStream rng(34, "train", 0);
  CHECK(std::isfinite(m.sgd_step(x, 0.1f, batch, rng)));
}
