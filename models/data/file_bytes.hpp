// Reads a whole data file into memory, gunzipping it on the fly when its name ends in ".gz".
// Errors name the file and, for a damaged gzip stream, the offset in the uncompressed stream.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

namespace dlsim::models {

/// The bytes of `path`; a "*.gz" file must be a gzip stream and is returned decompressed.
/// Throws InputError if the file cannot be opened or a gzip stream is truncated or corrupt.
std::vector<uint8_t> read_file_bytes(const std::filesystem::path& path);

}  // namespace dlsim::models
