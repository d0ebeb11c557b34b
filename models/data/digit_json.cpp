// Hand-written scanner: the ten files hold 7.85 million numbers (21 MB), so this avoids a DOM.
// Numbers of at most 7 digits without sign or exponent (all of the npm files': "0", "1", "0.ddd")
// are converted as float(m) / float(10^k), the other spellings by std::from_chars. Both are
// correctly rounded, so they agree bit for bit: m < 2^24 and 10^k (k <= 7) are exact floats and
// IEEE division rounds once (Clinger's fast path; checked for every such token, see the tests).
#include "models/data/digit_json.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <string>

#include "models/data/file_bytes.hpp"
#include "models/data/huge_pages.hpp"
#include "sim/core/error.hpp"

namespace dlsim::models {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Up to this many digits the mantissa is below 2^24, an exact float.
constexpr int kExactDigits = 7;
constexpr float kPowersOfTen[kExactDigits + 1] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f, 1e6f, 1e7f};

std::string describe(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u >= 0x20 && u < 0x7f ? fmt::format("'{}'", c) : fmt::format("byte 0x{:02x}", u);
}

class DigitJsonScanner {
 public:
  DigitJsonScanner(std::string_view text, std::string_view name) : text_(text), name_(name) {}

  std::vector<float> run() {
    expect('{', "'{' opening the object");
    expect_key();
    expect(':', "':' after the key");
    expect('[', "'[' opening the array");
    std::vector<float> values;
    // A valid file holds one more value than commas: reserving exactly that (not a bound from
    // the file size) leaves no reserved huge page to be zeroed for nothing.
    values.reserve(static_cast<size_t>(std::count(text_.begin(), text_.end(), ',')) + 1);
    advise_huge_pages(values.data(), values.capacity() * sizeof(float));
    skip_space();
    if (peek_is(']')) fail("an empty \"data\" array: no digits");
    for (;;) {
      // Most values are "0," : take those without the general path (same grammar, same offsets).
      if (pos_ + 1 < text_.size() && text_[pos_] == '0' && text_[pos_ + 1] == ',') {
        values.push_back(0.0f);
        pos_ += 2;
        continue;
      }
      skip_space();
      values.push_back(number());
      skip_space();
      if (peek_is(']')) break;
      expect(',', "',' or ']' after a value");
    }
    check_length(values.size());
    ++pos_;
    expect('}', "'}' closing the object");
    skip_space();
    if (pos_ != text_.size())
      fail(fmt::format("unexpected {} after the object", describe(text_[pos_])));
    return values;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(fmt::format("{}: byte {}: {}", name_, pos_, what));
  }
  [[noreturn]] void unexpected(const char* expected) const {
    if (pos_ >= text_.size()) fail(fmt::format("truncated file: expected {}", expected));
    fail(fmt::format("unexpected {}, expected {}", describe(text_[pos_]), expected));
  }
  bool peek_is(char c) const { return pos_ < text_.size() && text_[pos_] == c; }
  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\r' || text_[pos_] == '\t'))
      ++pos_;
  }
  void expect(char c, const char* what) {
    skip_space();
    if (!peek_is(c)) unexpected(what);
    ++pos_;
  }
  void expect_key() {
    expect('"', "the key \"data\"");
    const size_t start = pos_;
    const size_t close = text_.find('"', start);
    if (close == std::string_view::npos) fail("truncated file inside the key");
    if (text_.substr(start, close - start) != "data") {
      pos_ = start - 1;
      fail(fmt::format("expected the only key to be \"data\", got \"{}\"",
                       text_.substr(start, std::min<size_t>(close - start, 40))));
    }
    pos_ = close + 1;
  }
  // Appends the digits at pos_ to `mantissa` (wrapping past 19 digits; only read up to
  // kExactDigits) and counts them.
  void digits(uint64_t& mantissa, int& count) {
    if (pos_ >= text_.size() || !is_digit(text_[pos_])) unexpected("a digit");
    while (pos_ < text_.size() && is_digit(text_[pos_])) {
      mantissa = mantissa * 10 + static_cast<uint64_t>(text_[pos_] - '0');
      ++count, ++pos_;
    }
  }
  // JSON number grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
  float number() {
    const size_t start = pos_;
    const bool negative = peek_is('-');
    if (negative) ++pos_;
    uint64_t mantissa = 0;
    int digit_count = 0;
    if (peek_is('0')) {
      ++pos_, ++digit_count;
    } else {
      if (pos_ >= text_.size() || !is_digit(text_[pos_])) unexpected("a number");
      digits(mantissa, digit_count);
    }
    int fraction_digits = 0;
    if (peek_is('.')) {
      ++pos_;
      const int before = digit_count;
      digits(mantissa, digit_count);
      fraction_digits = digit_count - before;
    }
    bool exponent = false;
    if (peek_is('e') || peek_is('E')) {
      exponent = true;
      ++pos_;
      if (peek_is('+') || peek_is('-')) ++pos_;
      uint64_t unused = 0;
      int unused_count = 0;
      digits(unused, unused_count);
    }
    float value = 0.0f;
    std::errc error{};
    if (!negative && !exponent && digit_count <= kExactDigits) {
      value = static_cast<float>(mantissa) / kPowersOfTen[fraction_digits];
    } else {  // "-0", exponents, long spellings
      error = std::from_chars(text_.data() + start, text_.data() + pos_, value).ec;
    }
    if (error != std::errc() || !(value >= 0.0f && value <= 1.0f)) {
      const std::string_view token = text_.substr(start, pos_ - start);
      pos_ = start;
      fail(fmt::format("value {} is outside [0, 1]", token));
    }
    return value;
  }
  void check_length(size_t count) const {
    if (count % kDigitPixels != 0) {
      fail(fmt::format("{} values is not a multiple of {} (one 28x28 digit); {} left over", count,
                       kDigitPixels, count % kDigitPixels));
    }
  }

  std::string_view text_;
  std::string_view name_;
  size_t pos_ = 0;
};

}  // namespace

std::vector<float> parse_digit_json(std::string_view text, std::string_view name) {
  return DigitJsonScanner(text, name).run();
}

std::vector<float> read_digit_json(const std::filesystem::path& path) {
  const std::vector<uint8_t> bytes = read_file_bytes(path);
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  return parse_digit_json(text, path.string());
}

}  // namespace dlsim::models
