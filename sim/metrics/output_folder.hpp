// An output folder that appears whole or not at all: files are written into OUT.tmp, and
// commit() renames it to OUT. An existing OUT is replaced only when it is an earlier run's folder
// (scenario.json, metrics.csv, summary.json, plots); anything else is refused up front.
// Destroyed without commit(), it removes OUT.tmp: a failed run leaves nothing behind, unless the
// run keeps checkpoints there (keep_on_failure): then OUT.tmp is what it resumes from.
#pragma once

#include <filesystem>
#include <string>

namespace dlsim {

/// fsync of a file or folder (best effort): what is renamed into place after it survives a
/// power loss.
void sync_to_disk(const std::filesystem::path& path);

class OutputFolder {
 public:
  enum class Staging { kFresh, kContinue };
  /// Creates OUT.tmp (removing a stale one), or with kContinue takes over the one there (a run
  /// resumed from its checkpoint). InputError if OUT exists and is not a run folder,
  /// EnvironmentError if OUT.tmp cannot be created.
  explicit OutputFolder(std::filesystem::path final_path, Staging staging = Staging::kFresh);
  /// OUT.tmp for OUT (InputError for a path that names no folder).
  static std::filesystem::path staging_path(const std::filesystem::path& final_path);
  /// Leave OUT.tmp in place if the run fails.
  void keep_on_failure() { keep_on_failure_ = true; }
  ~OutputFolder();
  OutputFolder(const OutputFolder&) = delete;
  OutputFolder& operator=(const OutputFolder&) = delete;

  /// Path of `name` inside the folder being written.
  std::string file(const std::string& name) const { return (staging_ / name).string(); }
  /// Writes text to `name` in one go. InputError on failure.
  void write_text(const std::string& name, const std::string& text) const;
  /// Renames OUT.tmp to OUT. InputError on failure.
  void commit();
  const std::filesystem::path& final_path() const { return final_; }
  const std::filesystem::path& staging() const { return staging_; }

 private:
  std::filesystem::path final_;
  std::filesystem::path staging_;
  bool committed_ = false;
  bool keep_on_failure_ = false;
};

}  // namespace dlsim
