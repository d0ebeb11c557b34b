// The folder a sweep writes: OUT/sweep.json (the sweep as read, written first, so a folder that
// has it is a sweep's), OUT/runs/<id>/, OUT/sweep.csv and OUT/.lock. Every file appears whole:
// written under a temporary name, synced and renamed, so a kill or power loss at any moment
// leaves a folder the next start can resume.
#pragma once

#include <filesystem>
#include <string>

#include "sim/sweep/sweep_spec.hpp"

namespace dlsim {

inline constexpr const char* kSweepLockFile = ".lock";

/// InputError unless OUT is absent, empty, a sweep's folder, or what a first start killed
/// before it wrote sweep.json left behind.
void check_sweep_folder(const std::filesystem::path& out);
/// Creates OUT (and parents). InputError on failure.
void create_sweep_folder(const std::filesystem::path& out);
/// Writes OUT/sweep.json, creates OUT/runs/, and removes what killed runs left there
/// (runs/<id>.tmp, runs/<id>.old). Only one process may call it: the holder of OUT/.lock.
void prepare_sweep_folder(const SweepSpec& spec, const std::filesystem::path& out);
/// Writes `text` to `file` through file.tmp, synced and renamed. InputError on failure.
void write_atomically(const std::filesystem::path& file, const std::string& text);

}  // namespace dlsim
