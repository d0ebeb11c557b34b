#include "sim/scenario/learning_json.hpp"

#include <variant>

namespace dlsim {

using nlohmann::json;

namespace {

models::SyntheticSpec parse_synthetic(JsonObject o) {
  models::SyntheticSpec s;
  s.num_classes = static_cast<uint32_t>(o.integer("classes", s.num_classes, 2, 255));
  s.channels = static_cast<uint32_t>(o.integer("channels", s.channels, 1, 64));
  s.height = static_cast<uint32_t>(o.integer("height", s.height, 1, 4096));
  s.width = static_cast<uint32_t>(o.integer("width", s.width, 1, 1 << 20));
  s.train_count = static_cast<uint32_t>(o.integer("train", s.train_count, 1, 10000000));
  s.test_count = static_cast<uint32_t>(o.integer("test", s.test_count, 1, 10000000));
  s.separation = o.number("separation", s.separation, 0.0);
  s.noise = o.number("noise", s.noise, 0.0);
  s.teacher_hidden = static_cast<uint32_t>(o.integer("teacher_hidden", s.teacher_hidden, 1, 65536));
  o.finish();
  return s;
}

models::PartitionSpec parse_partition(JsonObject o) {
  models::PartitionSpec p;
  p.kind = o.choice<models::PartitionKind>("kind", {{"iid", models::PartitionKind::kIid},
                                                    {"by_label", models::PartitionKind::kByLabel},
                                                    {"dirichlet", models::PartitionKind::kDirichlet},
                                                    {"explicit", models::PartitionKind::kExplicit}},
                                           models::PartitionKind::kIid);
  if (p.kind == models::PartitionKind::kByLabel)
    p.labels_per_agent = static_cast<uint32_t>(o.integer("labels_per_agent", 1, 1, 255));
  if (p.kind == models::PartitionKind::kDirichlet) p.alpha = o.number("alpha", {}, 1e-9);
  if (p.kind == models::PartitionKind::kExplicit) {
    const json& classes = o.raw("classes");
    const std::string pointer = child_pointer(o.pointer(), "classes");
    if (!classes.is_array() || classes.empty())
      throw InputError(fmt::format("{}: {}: expected one list of classes per agent", o.file(),
                                   pointer));
    for (size_t i = 0; i < classes.size(); ++i) {
      json holder = {{"c", classes[i]}};
      JsonObject row(holder, o.file(), pointer);
      std::vector<uint32_t> list;
      try {
        for (int64_t c : row.integers("c", 0, 254)) list.push_back(static_cast<uint32_t>(c));
      } catch (const InputError&) {
        throw InputError(fmt::format("{}: {}: expected a list of class ids in 0..254", o.file(),
                                     child_pointer(pointer, i)));
      }
      p.agent_classes.push_back(std::move(list));
    }
  }
  o.finish();
  return p;
}

}  // namespace

DataSection parse_data(JsonObject o) {
  DataSection d;
  const std::string name = o.string("dataset");
  const auto kind = models::dataset_kind_from_name(name);
  if (!kind)
    o.fail("dataset", fmt::format("expected one of {}, got \"{}\"", models::dataset_kind_names(),
                                  name));
  d.dataset.kind = *kind;
  const bool synthetic = *kind == models::DatasetKind::kSyntheticClusters ||
                         *kind == models::DatasetKind::kSyntheticTeacher;
  if (synthetic) d.dataset.synthetic = parse_synthetic(o.object("synthetic", true));
  d.dataset.normalise = o.boolean("normalise", true) ? models::Normalise::kOn
                                                     : models::Normalise::kOff;
  if (o.has("train_limit"))
    d.dataset.train_limit = static_cast<uint32_t>(o.integer("train_limit", {}, 1, 100000000));
  if (o.has("test_limit"))
    d.dataset.test_limit = static_cast<uint32_t>(o.integer("test_limit", {}, 1, 100000000));
  d.partition = parse_partition(o.object("partition", true));
  d.batch_size = static_cast<uint32_t>(o.integer("batch_size", 32, 1, 1 << 20));
  o.finish();
  return d;
}

json data_to_json(const DataSection& d) {
  json j = {{"dataset", std::string(models::dataset_kind_name(d.dataset.kind))},
            {"normalise", d.dataset.normalise == models::Normalise::kOn},
            {"batch_size", d.batch_size}};
  if (d.dataset.kind == models::DatasetKind::kSyntheticClusters ||
      d.dataset.kind == models::DatasetKind::kSyntheticTeacher) {
    const models::SyntheticSpec& s = d.dataset.synthetic;
    j["synthetic"] = {{"classes", s.num_classes}, {"channels", s.channels},
                      {"height", s.height},       {"width", s.width},
                      {"train", s.train_count},   {"test", s.test_count},
                      {"separation", s.separation}, {"noise", s.noise},
                      {"teacher_hidden", s.teacher_hidden}};
  }
  if (d.dataset.train_limit) j["train_limit"] = *d.dataset.train_limit;
  if (d.dataset.test_limit) j["test_limit"] = *d.dataset.test_limit;
  const models::PartitionSpec& p = d.partition;
  switch (p.kind) {
    case models::PartitionKind::kIid: j["partition"] = {{"kind", "iid"}}; break;
    case models::PartitionKind::kByLabel:
      j["partition"] = {{"kind", "by_label"}, {"labels_per_agent", p.labels_per_agent}};
      break;
    case models::PartitionKind::kDirichlet:
      j["partition"] = {{"kind", "dirichlet"}, {"alpha", p.alpha}};
      break;
    case models::PartitionKind::kExplicit:
      j["partition"] = {{"kind", "explicit"}, {"classes", p.agent_classes}};
      break;
  }
  return j;
}

models::InputShape input_shape(const std::optional<DataSection>& data) {
  if (!data) return models::InputShape{1, 1, 1, 1};
  const models::DataSpec& d = data->dataset;
  if (d.kind == models::DatasetKind::kSyntheticClusters ||
      d.kind == models::DatasetKind::kSyntheticTeacher)
    return {d.synthetic.channels, d.synthetic.height, d.synthetic.width, d.synthetic.num_classes};
  return {1, 28, 28, 10};  // MNIST and Fashion-MNIST
}

}  // namespace dlsim
