// The capability matrix of every algorithm, generated from the descriptors: what `dlsim
// algorithms` prints and docs/algorithms.md's "Capabilities" table holds (a test keeps the two
// equal).
#pragma once

#include <string>

namespace dlsim {

/// A Markdown table: one row per algorithm, one column per capability ("yes", "no" or the
/// trigger kinds), then the combinations each algorithm refuses beyond it.
std::string capability_table();

}  // namespace dlsim
