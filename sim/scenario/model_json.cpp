// "model" and "optimizer" sections (declared in learning_json.hpp).
#include <variant>

#include "sim/scenario/learning_json.hpp"

namespace dlsim {

using nlohmann::json;

namespace {

models::LayerSpec parse_layer(JsonObject o) {
  using models::LayerSpec;
  enum class K { kConv, kPool, kDense, kRelu, kTanh, kDropout, kFlatten };
  const K kind = o.choice<K>("kind", {{"conv", K::kConv},
                                      {"max_pool", K::kPool},
                                      {"dense", K::kDense},
                                      {"relu", K::kRelu},
                                      {"tanh", K::kTanh},
                                      {"dropout", K::kDropout},
                                      {"flatten", K::kFlatten}});
  LayerSpec l;
  switch (kind) {
    case K::kConv: {
      const auto filters = static_cast<uint32_t>(o.integer("filters", {}, 1, 65536));
      const auto kernel = static_cast<uint32_t>(o.integer("kernel", {}, 1, 1024));
      const auto stride = static_cast<uint32_t>(o.integer("stride", 1, 1, 1024));
      const auto padding = static_cast<uint32_t>(o.integer("padding", 0, 0, 1024));
      l = LayerSpec::conv(filters, kernel, stride, padding);
      break;
    }
    case K::kPool: {
      const auto kernel = static_cast<uint32_t>(o.integer("kernel", {}, 1, 1024));
      l = LayerSpec::max_pool(kernel, static_cast<uint32_t>(o.integer("stride", kernel, 1, 1024)));
      break;
    }
    case K::kDense: l = LayerSpec::dense(static_cast<uint32_t>(o.integer("units", {}, 1, 1 << 24))); break;
    case K::kRelu: l = LayerSpec::relu(); break;
    case K::kTanh: l = LayerSpec::tanh(); break;
    case K::kDropout: l = LayerSpec::dropout(o.number("rate", {}, 0.0, 0.999)); break;
    case K::kFlatten: l = LayerSpec::flatten(); break;
  }
  o.finish();
  return l;
}

json layer_to_json(const models::LayerSpec& l) {
  using models::LayerKind;
  switch (l.kind) {
    case LayerKind::kConv:
      return {{"kind", "conv"}, {"filters", l.units}, {"kernel", l.kernel},
              {"stride", l.stride}, {"padding", l.padding}};
    case LayerKind::kMaxPool: return {{"kind", "max_pool"}, {"kernel", l.kernel}, {"stride", l.stride}};
    case LayerKind::kDense: return {{"kind", "dense"}, {"units", l.units}};
    case LayerKind::kRelu: return {{"kind", "relu"}};
    case LayerKind::kTanh: return {{"kind", "tanh"}};
    case LayerKind::kDropout: return {{"kind", "dropout"}, {"rate", l.rate}};
    case LayerKind::kFlatten: return {{"kind", "flatten"}};
  }
  return {};
}

models::CnnSpec parse_cnn(JsonObject& o) {
  if (o.has("preset")) {
    if (o.has("layers")) o.fail("preset", "give either \"preset\" or \"layers\", not both");
    o.choice<int>("preset", {{"lenet", 0}});
    return models::lenet_spec();  // classes are checked against the data at build time
  }
  const json& layers = o.raw("layers");
  const std::string pointer = child_pointer(o.pointer(), "layers");
  if (!layers.is_array() || layers.empty())
    throw InputError(fmt::format("{}: {}: expected a non-empty array of layers", o.file(), pointer));
  models::CnnSpec cnn;
  for (size_t i = 0; i < layers.size(); ++i)
    cnn.layers.push_back(parse_layer(JsonObject(layers[i], o.file(), child_pointer(pointer, i))));
  return cnn;
}

const char* init_name(models::InitScheme init) {
  switch (init) {
    case models::InitScheme::kHeNormal: return "he_normal";
    case models::InitScheme::kGlorotNormal: return "glorot_normal";
    case models::InitScheme::kPytorch: return "pytorch";
  }
  return "?";
}

}  // namespace

models::ModelSpec parse_model(JsonObject o) {
  enum class K { kMlp, kCnn, kQuadratic };
  const K kind = o.choice<K>("kind", {{"mlp", K::kMlp}, {"cnn", K::kCnn}, {"quadratic", K::kQuadratic}});
  models::ModelSpec spec;
  if (kind == K::kMlp) {
    models::MlpSpec mlp;
    for (int64_t h : o.integers("hidden", 1, 1 << 24)) mlp.hidden.push_back(static_cast<uint32_t>(h));
    mlp.activation = o.choice<models::Activation>(
        "activation", {{"relu", models::Activation::kRelu}, {"tanh", models::Activation::kTanh}},
        models::Activation::kRelu);
    if (o.has("dropout")) mlp.dropout = o.numbers("dropout", 0.0, 0.999);
    if (mlp.dropout.size() > 2)
      o.fail("dropout", "expected at most two rates: [input, after each hidden layer]");
    spec.arch = mlp;
  } else if (kind == K::kCnn) {
    spec.arch = parse_cnn(o);
  } else {
    models::QuadraticSpec q;
    q.dim = static_cast<uint32_t>(o.integer("dim", {}, 1, 1 << 30));
    q.noise_sigma = o.number("noise", 0.0, 0.0);
    spec.arch = q;
  }
  if (kind != K::kQuadratic)  // a quadratic model has no layers: the key is unknown there
    spec.init = o.choice<models::InitScheme>("init",
                                             {{"he_normal", models::InitScheme::kHeNormal},
                                              {"glorot_normal", models::InitScheme::kGlorotNormal},
                                              {"pytorch", models::InitScheme::kPytorch}},
                                             models::InitScheme::kHeNormal);
  o.finish();
  return spec;
}

json model_to_json(const models::ModelSpec& spec) {
  if (const auto* mlp = std::get_if<models::MlpSpec>(&spec.arch))
    return {{"kind", "mlp"}, {"hidden", mlp->hidden},
            {"activation", mlp->activation == models::Activation::kRelu ? "relu" : "tanh"},
            {"dropout", mlp->dropout}, {"init", init_name(spec.init)}};
  if (const auto* q = std::get_if<models::QuadraticSpec>(&spec.arch))
    return {{"kind", "quadratic"}, {"dim", q->dim}, {"noise", q->noise_sigma}};
  json layers = json::array();
  for (const models::LayerSpec& l : std::get<models::CnnSpec>(spec.arch).layers)
    layers.push_back(layer_to_json(l));
  return {{"kind", "cnn"}, {"layers", layers}, {"init", init_name(spec.init)}};
}

models::OptimizerSpec parse_optimizer(JsonObject o) {
  models::OptimizerSpec s;
  s.momentum = o.choice<models::Momentum>("kind", {{"sgd", models::Momentum::kNone},
                                                   {"momentum", models::Momentum::kClassic},
                                                   {"nesterov", models::Momentum::kNesterov}},
                                          models::Momentum::kNone);
  s.schedule.lr = o.number("lr", 0.01, 1e-12);
  if (s.momentum != models::Momentum::kNone) s.mu = o.number("momentum", 0.9, 0.0, 0.999999);
  s.weight_decay = o.number("weight_decay", 0.0, 0.0);
  JsonObject sched = o.object("schedule", true);
  s.schedule.kind = sched.choice<models::ScheduleKind>(
      "kind", {{"constant", models::ScheduleKind::kConstant},
               {"inverse", models::ScheduleKind::kInverseDecay},
               {"step", models::ScheduleKind::kStepDecay}},
      models::ScheduleKind::kConstant);
  if (s.schedule.kind == models::ScheduleKind::kInverseDecay) {
    s.schedule.eps = sched.number("eps", 1.0, 0.0);
    s.schedule.decay = sched.number("decay", 1.0, 0.0);
  }
  if (s.schedule.kind == models::ScheduleKind::kStepDecay) {
    s.schedule.milestones = sched.integers("milestones", 0, INT64_MAX);
    s.schedule.gamma = sched.number("gamma", 0.1, 1e-12);
  }
  sched.finish();
  o.finish();
  try {
    models::validate(s);
  } catch (const InputError& e) {
    o.fail_relative(e.what());  // e.g. "/schedule/milestones: must be strictly increasing"
  }
  return s;
}

json optimizer_to_json(const models::OptimizerSpec& s) {
  static const char* kKinds[] = {"sgd", "momentum", "nesterov"};
  json j = {{"kind", kKinds[static_cast<int>(s.momentum)]}, {"lr", s.schedule.lr},
            {"weight_decay", s.weight_decay}};
  if (s.momentum != models::Momentum::kNone) j["momentum"] = s.mu;
  switch (s.schedule.kind) {
    case models::ScheduleKind::kConstant: j["schedule"] = {{"kind", "constant"}}; break;
    case models::ScheduleKind::kInverseDecay:
      j["schedule"] = {{"kind", "inverse"}, {"eps", s.schedule.eps}, {"decay", s.schedule.decay}};
      break;
    case models::ScheduleKind::kStepDecay:
      j["schedule"] = {{"kind", "step"}, {"milestones", s.schedule.milestones},
                       {"gamma", s.schedule.gamma}};
      break;
  }
  return j;
}

}  // namespace dlsim
