#include "sim/metrics/output_folder.hpp"

#include <fmt/format.h>

#include <fstream>

#include "sim/core/error.hpp"

namespace dlsim {

namespace fs = std::filesystem;

OutputFolder::OutputFolder(fs::path final_path)
    : final_(std::move(final_path)), staging_(final_.string() + ".tmp") {
  std::error_code ec;
  fs::remove_all(staging_, ec);
  fs::create_directories(staging_, ec);
  if (ec) throw InputError(fmt::format("{}: cannot create the folder: {}", staging_.string(), ec.message()));
}

OutputFolder::~OutputFolder() {
  if (committed_) return;
  std::error_code ec;
  fs::remove_all(staging_, ec);
}

void OutputFolder::write_text(const std::string& name, const std::string& text) const {
  std::ofstream out(file(name), std::ios::binary);
  out << text;
  out.close();
  if (!out) throw InputError(fmt::format("{}: write failed", file(name)));
}

void OutputFolder::commit() {
  std::error_code ec;
  const fs::path old = final_.string() + ".old";
  fs::remove_all(old, ec);
  if (fs::exists(final_)) fs::rename(final_, old, ec);
  if (!ec) fs::rename(staging_, final_, ec);
  if (ec) throw InputError(fmt::format("{}: cannot move the results into place: {}",
                                       final_.string(), ec.message()));
  fs::remove_all(old, ec);
  committed_ = true;
}

}  // namespace dlsim
