// Turns an MLP or CNN spec into a Network for a given input, checking every shape. Errors are
// InputErrors whose message starts with a path relative to the model spec ("/layers/3: ..."), so
// that the scenario loader can prefix the file and the JSON pointer of the model object.
#pragma once

#include <memory>

#include "models/layers/network.hpp"
#include "models/model_spec.hpp"

namespace dlsim::models::layers {

/// `init` picks each weight layer's rule (InitScheme in models/model_spec.hpp).
std::unique_ptr<Network> build_network(const MlpSpec& spec, const InputShape& input,
                                       InitScheme init = InitScheme::kHeNormal);
std::unique_ptr<Network> build_network(const CnnSpec& spec, const InputShape& input,
                                       InitScheme init = InitScheme::kHeNormal);

}  // namespace dlsim::models::layers
