// The warning for error-feedback algorithms (SPARQ-SGD, CHOCO-SGD) whose consensus gain is too
// large for what a compressed message carries (docs/compression.md, "Stable consensus steps").
#pragma once

#include <functional>

#include "sim/scenario/world.hpp"

namespace dlsim {

/// `gain()`: the share of the distance to its neighbours' public copies the fastest-moving agent
/// moves per iteration, computed only when the compression is judged; `key`: the option that
/// sets it ("/algorithm/b").
void warn_about_compressed_gain(World& w, const char* key, const std::function<double()>& gain);

}  // namespace dlsim
