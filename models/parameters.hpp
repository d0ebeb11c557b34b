// The flat parameter vector of a model and what is done to it as a whole: averaging in a fixed
// order and saving to / loading from a binary file with a checked header.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

namespace dlsim::models {

/// All weights and biases of one model, one contiguous buffer (layout: models::Model docs).
using ParamVector = Eigen::VectorXf;

/// One tensor of a model (a layer's weights, or its bias) inside the flat parameter vector:
/// entries [offset, offset + size).
struct TensorRange {
  Eigen::Index offset = 0;
  Eigen::Index size = 0;
  std::string name = {};  ///< as PyTorch names it: "dense1.weight", "conv2.bias"; "x" (quadratic)
};

/// out = the mean of `vectors`, added up in the order given (float addition is not
/// associative: callers pass senders in id order). Precondition: non-empty, equal sizes.
void average_in_order(std::span<const ParamVector* const> vectors, ParamVector& out);

/// Parameter file, little-endian: bytes 0-7 magic "DLSIMPRM", 8-11 version (1), 12-15 bytes per
/// value (4), 16-23 architecture hash, 24-31 parameter count, then the float32 values.
/// Written to `path`.tmp and renamed, so a failed save leaves no partial file.
void save_parameters(const std::filesystem::path& path, const ParamVector& params,
                     uint64_t architecture_hash);

/// Reads a file written by save_parameters into params, whose size is the model's parameter
/// count. Throws InputError naming the file and byte offset of the first mismatch (magic,
/// version, value size, architecture hash, count, truncated or trailing data).
void load_parameters(const std::filesystem::path& path, Eigen::Ref<ParamVector> params,
                     uint64_t architecture_hash);

}  // namespace dlsim::models
