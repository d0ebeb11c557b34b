// Hand-written scanner: the ten files hold 7.85 million numbers (21 MB), so this avoids a DOM and
// converts each number with std::from_chars (correctly rounded, locale-free).
#include "models/data/digit_json.hpp"

#include <charconv>
#include <string>

#include "models/data/file_bytes.hpp"
#include "models/data/huge_pages.hpp"
#include "sim/core/error.hpp"

namespace dlsim::models {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

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
    values.reserve(text_.size() / 2);
    advise_huge_pages(values.data(), values.capacity() * sizeof(float));
    skip_space();
    if (peek_is(']')) fail("an empty \"data\" array: no digits");
    for (;;) {
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
  void digits() {
    if (pos_ >= text_.size() || !is_digit(text_[pos_])) unexpected("a digit");
    while (pos_ < text_.size() && is_digit(text_[pos_])) ++pos_;
  }
  // JSON number grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
  float number() {
    const size_t start = pos_;
    if (peek_is('-')) ++pos_;
    if (peek_is('0')) {
      ++pos_;
    } else {
      if (pos_ >= text_.size() || !is_digit(text_[pos_])) unexpected("a number");
      digits();
    }
    if (peek_is('.')) ++pos_, digits();
    if (peek_is('e') || peek_is('E')) {
      ++pos_;
      if (peek_is('+') || peek_is('-')) ++pos_;
      digits();
    }
    float value = 0.0f;
    const auto [end, error] = std::from_chars(text_.data() + start, text_.data() + pos_, value);
    const std::string_view token = text_.substr(start, pos_ - start);
    if (error != std::errc() || !(value >= 0.0f && value <= 1.0f)) {
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
