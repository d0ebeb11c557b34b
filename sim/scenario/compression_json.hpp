// The `compression` key of an algorithm: one stage object, or a chain (a list of a sparsifier
// then a quantizer), as JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "sim/compression/compression_spec.hpp"

namespace dlsim {

/// `value` at `pointer` in `file`. InputError naming the stage's pointer for an unknown kind, a
/// fraction outside (0, 1], k < 1, levels < 1, or a chain that is not a sparsifier followed by a
/// quantizer.
CompressionSpec parse_compression(const nlohmann::json& value, const std::string& file,
                                  const std::string& pointer);
/// The resolved form: a list of the stages that are not the identity.
nlohmann::json compression_to_json(const CompressionSpec& spec);

}  // namespace dlsim
