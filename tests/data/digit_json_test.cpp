#include "models/data/digit_json.hpp"

#include <doctest/doctest.h>

#include <charconv>
#include <cstring>

#include "data_test_files.hpp"

using namespace dlsim::models;
using namespace dlsim::models::testing;

namespace {

// `count` copies of "0.5", so with the 10-byte prefix value k starts at byte 10 + 4k.
std::vector<std::string> halves(size_t count) { return std::vector<std::string>(count, "0.5"); }

std::string digits_json(const std::vector<std::string>& values, std::string_view tail = "]}") {
  std::string text = R"({"data": [)";
  for (size_t k = 0; k < values.size(); ++k) text += (k ? "," : "") + values[k];
  return text + std::string(tail);
}

std::string parse_error(const std::string& text) {
  return input_error([&] { parse_digit_json(text, "d.json"); });
}

}  // namespace

TEST_CASE("a digit file in the npm shape reads back exactly, whatever JSON number spelling") {
  const std::vector<std::string> spellings = {"0", "0.25", "5e-1", "0.75E0", "1", "1.0", "-0"};
  std::vector<std::string> values;
  for (size_t k = 0; k < 2 * kDigitPixels; ++k) values.push_back(spellings[k % spellings.size()]);
  std::string text = digits_json(values);
  text.replace(0, 10, "{ \"data\" :\n\t[ ");  // JSON whitespace around the tokens
  const auto path = fresh_dir("digit-json") / "3.json";
  write_file(path, text + "\n");
  const std::vector<float> read = read_digit_json(path);
  REQUIRE(read.size() == 2 * kDigitPixels);
  const float expected[] = {0.0f, 0.25f, 0.5f, 0.75f, 1.0f, 1.0f, 0.0f};
  for (size_t k = 0; k < read.size(); ++k) CHECK(read[k] == expected[k % 7]);
}

TEST_CASE("digit files: an unexpected character is named with its byte offset") {
  std::string text = digits_json(halves(kDigitPixels));
  text[25] = ';';  // the comma after value 3 (10 + 4*3 + 3)
  CHECK(parse_error(text) == "d.json: byte 25: unexpected ';', expected ',' or ']' after a value");
  text = digits_json(halves(kDigitPixels), "]}  x");  // 3145 + "]}  " puts x at 3149
  CHECK(parse_error(text) == "d.json: byte 3149: unexpected 'x' after the object");
  CHECK(parse_error(R"({"pixels": [0]})") ==
        R"(d.json: byte 1: expected the only key to be "data", got "pixels")");
  CHECK(parse_error(digits_json({".5"})) == "d.json: byte 10: unexpected '.', expected a number");
  CHECK(parse_error(digits_json({"01"})) ==
        "d.json: byte 11: unexpected '1', expected ',' or ']' after a value");
  CHECK(parse_error(std::string("{\"data\": [\0", 11)) ==
        "d.json: byte 10: unexpected byte 0x00, expected a number");
}

TEST_CASE("digit files: truncation is reported at the end of the file") {
  // 784 values take 10 + 784*4 - 1 = 3145 bytes before the closing "]}".
  CHECK(parse_error(digits_json(halves(kDigitPixels), "")) ==
        "d.json: byte 3145: truncated file: expected ',' or ']' after a value");
  CHECK(parse_error(digits_json(halves(kDigitPixels), "]")) ==
        "d.json: byte 3146: truncated file: expected '}' closing the object");
  CHECK(parse_error(R"({"data)") == "d.json: byte 2: truncated file inside the key");
}

TEST_CASE("digit files: a length that is not whole digits, or no digits, is rejected") {
  // The closing ']' of 783 values sits at 10 + 783*4 - 1 = 3141.
  CHECK(parse_error(digits_json(halves(kDigitPixels - 1))) ==
        "d.json: byte 3141: 783 values is not a multiple of 784 (one 28x28 digit); 783 left over");
  CHECK(parse_error(R"({"data": []})") == R"(d.json: byte 10: an empty "data" array: no digits)");
}

TEST_CASE("digit files: a value outside [0, 1] is rejected at its offset") {
  auto values = halves(kDigitPixels);
  values[5] = "1.5";
  CHECK(parse_error(digits_json(values)) == "d.json: byte 30: value 1.5 is outside [0, 1]");
  values[5] = "0.5";
  values[2] = "-0.1";
  CHECK(parse_error(digits_json(values)) == "d.json: byte 18: value -0.1 is outside [0, 1]");
}

TEST_CASE("digit files: short numbers convert bit for bit as std::from_chars does") {
  // The scanner's own conversion (at most 7 digits, no sign or exponent) against from_chars on
  // every "0.d", "0.dd", "0.ddd" (all of the npm files' spellings), a spread of longer fractions
  // up to 7 digits, and spellings from_chars still converts ("-0", exponents, 8+ digits).
  std::vector<std::string> tokens = {"0",  "1",    "1.0",        "1.000000",
                                     "-0", "5e-1", "0.12345678", "0.000000001"};
  for (int digits = 1; digits <= 3; ++digits) {
    const int count = digits == 1 ? 10 : digits == 2 ? 100 : 1000;
    for (int m = 0; m < count; ++m) tokens.push_back(fmt::format("0.{:0{}}", m, digits));
  }
  for (int m = 0; m < 1000000; m += 997) tokens.push_back(fmt::format("0.{:06}", m));
  for (int m = 0; m < 1000000; m += 1009) tokens.push_back(fmt::format("0.{:06}", m) + "7");
  while (tokens.size() % kDigitPixels != 0) tokens.push_back("0.5");
  const std::vector<float> read = parse_digit_json(digits_json(tokens), "d.json");
  REQUIRE(read.size() == tokens.size());
  for (size_t k = 0; k < tokens.size(); ++k) {
    float expected = 0.0f;
    std::from_chars(tokens[k].data(), tokens[k].data() + tokens[k].size(), expected);
    INFO(tokens[k]);
    CHECK(std::memcmp(&read[k], &expected, sizeof(float)) == 0);
  }
}
