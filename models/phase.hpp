// Whether a network runs for training (dropout active, activations kept for backward) or for
// evaluation (dropout is the identity).
#pragma once

namespace dlsim::models {

enum class Phase { kTrain, kEval };

}  // namespace dlsim::models
