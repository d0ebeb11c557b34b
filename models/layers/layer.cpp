#include "models/layers/layer.hpp"

#include <fmt/format.h>

namespace dlsim::models::layers {

std::string to_string(const Shape& s) {
  return fmt::format("{}x{}x{}", s.channels, s.height, s.width);
}

}  // namespace dlsim::models::layers
