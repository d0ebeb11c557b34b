#include "models/parameters.hpp"

#include <fmt/format.h>

#include <array>
#include <bit>
#include <cstring>
#include <fstream>
#include <system_error>

#include "sim/core/error.hpp"

namespace dlsim::models {
namespace {

static_assert(std::endian::native == std::endian::little, "parameter files are little-endian");

constexpr std::array<char, 8> kMagic = {'D', 'L', 'S', 'I', 'M', 'P', 'R', 'M'};
constexpr uint32_t kVersion = 1;
constexpr size_t kHeaderBytes = 32;

struct Header {
  std::array<char, 8> magic;
  uint32_t version;
  uint32_t value_bytes;
  uint64_t architecture_hash;
  uint64_t count;
};
static_assert(sizeof(Header) == kHeaderBytes);

[[noreturn]] void fail(const std::filesystem::path& path, size_t offset, const std::string& what) {
  throw InputError(fmt::format("{}: byte {}: {}", path.string(), offset, what));
}

}  // namespace

void average_in_order(std::span<const ParamVector* const> vectors, ParamVector& out) {
  DLSIM_CHECK(!vectors.empty(), "averaging no vectors");
  out = *vectors[0];
  for (size_t i = 1; i < vectors.size(); ++i) {
    DLSIM_CHECK(vectors[i]->size() == out.size(), "averaging vectors of sizes {} and {}",
                vectors[i]->size(), out.size());
    out += *vectors[i];
  }
  out *= 1.0f / static_cast<float>(vectors.size());
}

void save_parameters(const std::filesystem::path& path, const ParamVector& params,
                     uint64_t architecture_hash) {
  const Header header{kMagic, kVersion, sizeof(float), architecture_hash,
                      static_cast<uint64_t>(params.size())};
  std::filesystem::path tmp = path;
  tmp += ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(&header), sizeof header);
    out.write(reinterpret_cast<const char*>(params.data()),
              static_cast<std::streamsize>(params.size() * sizeof(float)));
    if (!out) throw InputError(fmt::format("{}: cannot write the parameter file", tmp.string()));
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec)
    throw InputError(fmt::format("{}: cannot rename into place: {}", path.string(), ec.message()));
}

void load_parameters(const std::filesystem::path& path, Eigen::Ref<ParamVector> params,
                     uint64_t architecture_hash) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open the parameter file", path.string()));
  Header h{};
  in.read(reinterpret_cast<char*>(&h), sizeof h);
  const auto got = static_cast<size_t>(in.gcount());
  if (got < sizeof h)
    fail(path, got, fmt::format("the file ends inside the {}-byte header", kHeaderBytes));
  if (h.magic != kMagic) fail(path, 0, "not a dlsim parameter file (magic is not DLSIMPRM)");
  if (h.version != kVersion)
    fail(path, 8,
         fmt::format("format version {} is not supported (expected {})", h.version, kVersion));
  if (h.value_bytes != sizeof(float))
    fail(path, 12, fmt::format("values of {} bytes, expected {}", h.value_bytes, sizeof(float)));
  if (h.architecture_hash != architecture_hash)
    fail(path, 16,
         fmt::format("architecture hash {:#018x} does not match the model's {:#018x}",
                     h.architecture_hash, architecture_hash));
  if (h.count != static_cast<uint64_t>(params.size()))
    fail(path, 24, fmt::format("{} parameters, the model has {}", h.count, params.size()));
  // Sizes are checked before reading, so that a rejected file leaves params untouched.
  std::error_code ec;
  const uintmax_t size = std::filesystem::file_size(path, ec);
  const uintmax_t expected = kHeaderBytes + h.count * sizeof(float);
  if (ec) fail(path, kHeaderBytes, "cannot determine the file size: " + ec.message());
  if (size < expected)
    fail(path, size,
         fmt::format("the file ends after {} of {} parameters",
                     (size - kHeaderBytes) / sizeof(float), h.count));
  if (size > expected) fail(path, expected, "unexpected bytes after the last parameter");
  in.read(reinterpret_cast<char*>(params.data()),
          static_cast<std::streamsize>(params.size() * sizeof(float)));
  if (!in) fail(path, kHeaderBytes, "read error");
}

}  // namespace dlsim::models
