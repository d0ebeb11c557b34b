#include "sim/scenario/compression_json.hpp"

#include "sim/scenario/json_object.hpp"

namespace dlsim {

using nlohmann::json;

namespace {

enum class StageKind { kTopK, kRandomK, kQsgd, kSign, kFp16, kBf16 };

bool is_sparsifier(StageKind k) { return k == StageKind::kTopK || k == StageKind::kRandomK; }

constexpr const char* kChainRule =
    "a chain is a sparsifier (top_k, random_k) followed by a quantizer (qsgd, sign, fp16, bf16)";

// Reads one stage into spec; returns its kind.
StageKind parse_stage(JsonObject o, CompressionSpec& spec) {
  const StageKind kind = o.choice<StageKind>(
      "kind", {{"top_k", StageKind::kTopK}, {"random_k", StageKind::kRandomK},
               {"qsgd", StageKind::kQsgd}, {"sign", StageKind::kSign},
               {"fp16", StageKind::kFp16}, {"bf16", StageKind::kBf16}});
  switch (kind) {
    case StageKind::kTopK:
    case StageKind::kRandomK:
      spec.sparsifier = kind == StageKind::kTopK ? Sparsifier::kTopK : Sparsifier::kRandomK;
      if (o.has("fraction") == o.has("k"))
        o.fail_here("give exactly one of \"fraction\" (of the parameters) and \"k\" (a count)");
      if (o.has("fraction")) {
        spec.fraction = o.number("fraction", {}, 0.0, 1.0);
        if (spec.fraction <= 0.0)
          o.fail("fraction", "expected a fraction in (0, 1], got 0");
      } else {
        spec.k = static_cast<uint64_t>(o.integer("k", {}, 1));
      }
      if (kind == StageKind::kRandomK) {
        spec.indices = o.choice<IndexCoding>(
            "indices", {{"sent", IndexCoding::kSent}, {"seeded", IndexCoding::kSeeded}},
            IndexCoding::kSent);
        spec.scale = o.boolean("scale", false);
      }
      break;
    case StageKind::kQsgd:
      spec.quantizer = Quantizer::kQsgd;
      spec.levels = static_cast<uint32_t>(o.integer("levels", {}, 1, 1 << 24));
      spec.rescale = o.boolean("rescale", false);
      break;
    case StageKind::kSign: spec.quantizer = Quantizer::kSign; break;
    case StageKind::kFp16: spec.quantizer = Quantizer::kFp16; break;
    case StageKind::kBf16: spec.quantizer = Quantizer::kBf16; break;
  }
  o.finish();
  return kind;
}

}  // namespace

CompressionSpec parse_compression(const json& value, const std::string& file,
                                  const std::string& pointer) {
  CompressionSpec spec;
  if (!value.is_array()) {
    parse_stage(JsonObject(value, file, pointer), spec);
    return spec;
  }
  if (value.empty() || value.size() > 2)
    throw InputError(
        fmt::format("{}: {}: {} entries; {}", file, pointer, value.size(), kChainRule));
  const StageKind first = parse_stage(JsonObject(value[0], file, child_pointer(pointer, 0)), spec);
  if (value.size() == 2) {
    const std::string second_pointer = child_pointer(pointer, 1);
    const StageKind second = parse_stage(JsonObject(value[1], file, second_pointer), spec);
    if (!is_sparsifier(first) || is_sparsifier(second))
      throw InputError(fmt::format("{}: {}: {}", file, second_pointer, kChainRule));
  }
  return spec;
}

json compression_to_json(const CompressionSpec& spec) {
  json stages = json::array();
  if (spec.sparsifier != Sparsifier::kNone) {
    json s = {{"kind", std::string(to_string(spec.sparsifier))}};
    if (spec.k > 0)
      s["k"] = spec.k;
    else
      s["fraction"] = spec.fraction;
    if (spec.sparsifier == Sparsifier::kRandomK) {
      s["indices"] = spec.indices == IndexCoding::kSent ? "sent" : "seeded";
      s["scale"] = spec.scale;
    }
    stages.push_back(s);
  }
  if (spec.quantizer != Quantizer::kFloat32) {
    json q = {{"kind", std::string(to_string(spec.quantizer))}};
    if (spec.quantizer == Quantizer::kQsgd) {
      q["levels"] = spec.levels;
      q["rescale"] = spec.rescale;
    }
    stages.push_back(q);
  }
  return stages;
}

}  // namespace dlsim
