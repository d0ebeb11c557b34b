// Fuzzes the reader of the MNIST digit files ({"data": [784 values per digit]}), a hand-written
// scanner with a fast path for "0," and its own number conversion: read_digit_json, the function
// load_mnist_digits calls for each of 0.json ... 9.json.
#include "models/data/digit_json.hpp"
#include "tools/fuzz/fuzz_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dlsim;
  const std::string path = fuzz::write_file("0.json", fuzz::as_text(data, size));
  fuzz::expect_input_errors_only([&] { (void)models::read_digit_json(path); });
  return 0;
}
