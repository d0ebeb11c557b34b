#include "sim/scenario/byzantine_json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "sim/robust/attacks.hpp"
#include "sim/scenario/algorithm_descriptor.hpp"
#include "sim/scenario/learning_json.hpp"
#include "sim/scenario/scenario_spec.hpp"

namespace dlsim {
namespace {

using nlohmann::json;

// The listed agents, sorted, or `count` of them placed from the seed.
std::vector<uint32_t> parse_agents(JsonObject& o, uint32_t agents, uint64_t seed) {
  if (o.has("agents") && o.has("count"))
    o.fail("count",
           "give either \"agents\" (a list) or \"count\" (placed from the seed), "
           "not both");
  if (o.has("count")) {
    const int64_t f = o.integer("count", {}, 1);
    if (f >= agents)
      o.fail("count",
             fmt::format("{} Byzantine agents of {}: at least one must be honest", f, agents));
    return place_byzantine(seed, agents, static_cast<uint32_t>(f));
  }
  if (!o.has("agents")) o.fail_here("expected \"agents\" (a list of ids) or \"count\"");
  const std::vector<int64_t> ids = o.integers("agents", 0, int64_t{agents} - 1);
  const std::string pointer = child_pointer(o.pointer(), "agents");
  if (ids.empty()) o.fail("agents", "an empty list; remove the byzantine key instead");
  std::vector<uint32_t> out;
  for (size_t k = 0; k < ids.size(); ++k) {
    const auto id = static_cast<uint32_t>(ids[k]);
    if (std::find(out.begin(), out.end(), id) != out.end())
      throw InputError(
          fmt::format("{}: {}: agent {} is listed twice", o.file(), child_pointer(pointer, k), id));
    out.push_back(id);
  }
  if (out.size() >= agents)
    o.fail("agents", fmt::format("{} Byzantine agents of {}: at least one must be honest",
                                 out.size(), agents));
  std::sort(out.begin(), out.end());
  return out;
}

AttackSpec parse_attack(JsonObject o, uint32_t agents, uint32_t f) {
  AttackSpec a;
  a.kind = o.choice<AttackKind>("kind", {{"alie", AttackKind::kAlie},
                                         {"ipm", AttackKind::kIpm},
                                         {"sign_flip", AttackKind::kSignFlip},
                                         {"gaussian", AttackKind::kGaussian},
                                         {"dissensus", AttackKind::kDissensus},
                                         {"label_flip", AttackKind::kLabelFlip}});
  switch (a.kind) {
    case AttackKind::kAlie:
      if (o.has("z")) {
        a.z = o.number("z");
      } else if (const std::optional<double> z = alie_z(agents, f)) {
        a.z = *z;
      } else {
        o.fail("z", fmt::format("required: with {} agents of which {} Byzantine, ALIE's "
                                "Phi^-1((n - f - s) / (n - f)) has no value (docs/algorithms.md, "
                                "\"Attacks\")",
                                agents, f));
      }
      break;
    case AttackKind::kIpm:
      a.epsilon = o.number("epsilon", 0.1, 0.0);
      break;
    case AttackKind::kDissensus:
      a.epsilon = o.number("epsilon", 1.0, 0.0);
      break;
    case AttackKind::kGaussian:
      a.sigma = o.number("sigma", 1.0, 0.0);
      break;
    case AttackKind::kSignFlip:
    case AttackKind::kLabelFlip:
      break;
  }
  o.finish();
  return a;
}

}  // namespace

ByzantineSpec parse_byzantine(JsonObject o, uint32_t agents, uint64_t seed) {
  ByzantineSpec b;
  b.placed = o.has("count");
  b.agents = parse_agents(o, agents, seed);
  b.attack = parse_attack(o.object("attack"), agents, static_cast<uint32_t>(b.agents.size()));
  b.attack.knowledge = o.choice<AttackKnowledge>(
      "knowledge",
      {{"received", AttackKnowledge::kReceived}, {"omniscient", AttackKnowledge::kOmniscient}},
      AttackKnowledge::kReceived);
  b.sends_given = o.has("sends");
  b.sends = o.choice<ByzantineTiming>("sends",
                                      {{"with_trigger", ByzantineTiming::kWithTrigger},
                                       {"every_iteration", ByzantineTiming::kEveryIteration}},
                                      ByzantineTiming::kWithTrigger);
  o.finish();
  return b;
}

void check_byzantine(const ScenarioSpec& s) {
  if (!s.byzantine) return;
  const auto fail = [&](const std::string& key, const std::string& message) {
    throw InputError(fmt::format("{}: /byzantine{}: {}", s.file, key, message));
  };
  if (s.byzantine->attack.kind == AttackKind::kLabelFlip) {
    if (!s.data || input_shape(s.data).classes != 10)
      fail("/attack/kind", "label_flip relabels y as 9 - y and needs a dataset of 10 classes");
    if (s.algorithm.descriptor->capabilities().centralized)
      fail("", "a centralized run trains one model on all the data: no agent can attack");
    if (s.byzantine->sends_given)
      fail("/sends",
           "label_flip follows the honest protocol (its data is poisoned): it sends "
           "when an honest agent would");
    return;  // data-side: every algorithm trains on its shard
  }
  const std::string name(s.algorithm.name());
  if (name != "dpsgd" && name != "detsgrad")
    fail("", fmt::format("Byzantine senders work with \"dpsgd\" and \"detsgrad\" so far, not "
                         "\"{}\" (only label_flip works with every algorithm)",
                         name));
  if (s.byzantine->sends_given && name != "detsgrad")
    fail("/sends", fmt::format("\"{}\" sends at every iteration: \"sends\" is for an "
                               "event-triggered algorithm (\"detsgrad\")",
                               name));
  if (name == "detsgrad" && s.trigger && per_tensor(*s.trigger))
    fail("",
         "Byzantine DETSGRAD senders craft whole models; use a whole-model /trigger "
         "(granularity \"model\")");
  if (s.time.mode == TimeMode::kAsync)
    fail("", "Byzantine senders run in sync mode only so far (remove /time/mode \"async\")");
  if (s.dynamic)
    fail("", "Byzantine senders need a static topology so far (remove /topology/dynamic)");
  if (s.algorithm.compression.enabled())
    fail("", "Byzantine senders send uncompressed vectors; remove /algorithm/compression");
  // A returning agent's rejoin model could come from an attacker, which would send it honestly.
  if (s.churn) fail("", "Byzantine senders with churn are not supported yet (remove /churn)");
}

json byzantine_to_json(const ByzantineSpec& b) {
  json j;
  if (b.placed)
    j["count"] = b.agents.size();
  else
    j["agents"] = b.agents;
  json attack = {{"kind", to_string(b.attack.kind)}};
  switch (b.attack.kind) {
    case AttackKind::kAlie:
      attack["z"] = b.attack.z;
      break;
    case AttackKind::kIpm:
    case AttackKind::kDissensus:
      attack["epsilon"] = b.attack.epsilon;
      break;
    case AttackKind::kGaussian:
      attack["sigma"] = b.attack.sigma;
      break;
    case AttackKind::kSignFlip:
    case AttackKind::kLabelFlip:
      break;
  }
  j["attack"] = attack;
  j["knowledge"] = to_string(b.attack.knowledge);
  if (b.sends_given) j["sends"] = to_string(b.sends);
  return j;
}

}  // namespace dlsim
