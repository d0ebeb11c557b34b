#include "sim/compression/compressed_vector.hpp"

#include <Eigen/Core>

#include <algorithm>

#include "sim/core/error.hpp"
#include "sim/core/state_archive.hpp"

namespace dlsim {
namespace {

using FloatMap = Eigen::Map<Eigen::VectorXf>;
using ConstFloatMap = Eigen::Map<const Eigen::VectorXf>;

}  // namespace

void CompressedVector::add_to(std::span<float> target) const {
  DLSIM_CHECK(target.size() == dimension, "adding a compressed vector of {} to one of {}",
              dimension, target.size());
  if (!sparse) {
    FloatMap(target.data(), static_cast<Eigen::Index>(target.size())) +=
        ConstFloatMap(values.data(), static_cast<Eigen::Index>(values.size()));
    return;
  }
  for (size_t j = 0; j < indices.size(); ++j) target[indices[j]] += values[j];
}

void CompressedVector::assign_to(std::span<float> target) const {
  DLSIM_CHECK(target.size() == dimension, "assigning a compressed vector of {} to one of {}",
              dimension, target.size());
  if (!sparse) {
    std::copy(values.begin(), values.end(), target.begin());
    return;
  }
  std::fill(target.begin(), target.end(), 0.0f);
  for (size_t j = 0; j < indices.size(); ++j) target[indices[j]] = values[j];
}

void CompressedVector::archive(StateArchive& ar) {
  ar.value(dimension);
  ar.value(sparse);
  ar.value(wire_bytes);
  ar.vector(indices);
  ar.vector(values);
  if (!ar.loading()) return;
  const bool consistent = sparse ? indices.size() == values.size() &&
                                       std::all_of(indices.begin(), indices.end(),
                                                   [&](uint32_t i) { return i < dimension; })
                                 : indices.empty() && values.size() == dimension;
  if (!consistent) ar.fail("a compressed vector's indices and values do not match");
}

}  // namespace dlsim
