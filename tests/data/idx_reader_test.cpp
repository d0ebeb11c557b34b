#include "models/data/idx_reader.hpp"

#include <doctest/doctest.h>

#include "data_test_files.hpp"

using namespace dlsim::models;
using namespace dlsim::models::testing;

namespace {

// Writes images (3 of 2x3) and labels {0, 9, 4}, plain or gzip, and returns the two paths.
std::pair<std::filesystem::path, std::filesystem::path> write_pair(const std::filesystem::path& dir,
                                                                   bool gz) {
  const auto images = dir / (gz ? "images.gz" : "images");
  const auto labels = dir / (gz ? "labels.gz" : "labels");
  const auto img = idx_images(3, 2, 3);
  const auto lab = idx_labels({0, 9, 4});
  write_file(images, gz ? gzip_bytes(img, dir / "scratch") : img);
  write_file(labels, gz ? gzip_bytes(lab, dir / "scratch") : lab);
  return {images, labels};
}

void check_round_trip(const Dataset& data) {
  CHECK(data.size() == 3);
  CHECK(data.channels == 1);
  CHECK(data.height == 2);
  CHECK(data.width == 3);
  CHECK(data.features.rows() == 6);
  CHECK(data.features.cols() == 3);
  CHECK(data.labels == std::vector<uint8_t>{0, 9, 4});
  // Stream byte k = 7k; image i, pixel r is stream byte 6i + r, scaled by 1/255.
  for (int i = 0; i < 3; ++i)
    for (int r = 0; r < 6; ++r)
      CHECK(data.features(r, i) == doctest::Approx(7.0 * (6 * i + r) / 255.0));
}

// The InputError message for an images file `path` holding `bytes`.
std::string images_error(const std::vector<uint8_t>& bytes, const std::filesystem::path& path) {
  write_file(path, bytes);
  return input_error([&] { read_idx_images(path); });
}

}  // namespace

TEST_CASE("IDX files round-trip, plain and gzip-compressed") {
  const auto dir = fresh_dir("idx-round-trip");
  const auto [images, labels] = write_pair(dir, false);
  check_round_trip(read_idx_dataset(images, labels, "t"));
  const auto [images_gz, labels_gz] = write_pair(dir, true);
  check_round_trip(read_idx_dataset(images_gz, labels_gz, "t"));
}

TEST_CASE("IDX magic and type byte are checked at their byte offsets") {
  const auto p = fresh_dir("idx-bad-magic") / "images";
  auto bytes = idx_images(1, 1, 1);
  bytes[3] = 1;  // a labels magic in an images file
  CHECK(images_error(bytes, p) ==
        p.string() + ": byte 3: expected magic 0x00000803 (images), got 0x00000801");
  bytes = idx_images(1, 1, 1);
  bytes[2] = 0x0d;  // float data
  CHECK(images_error(bytes, p) ==
        p.string() +
            ": byte 2: expected magic 0x00000803 (images), got 0x00000d03 (data type "
            "0x0d is not unsigned byte 0x08)");
  bytes = idx_images(1, 1, 1);
  bytes[1] = 0x12;
  CHECK(images_error(bytes, p) ==
        p.string() + ": byte 1: expected magic 0x00000803 (images), got 0x00120803");
}

TEST_CASE("IDX length must match the dimensions exactly") {
  const auto p = fresh_dir("idx-bad-length") / "images";
  auto bytes = idx_images(3, 2, 3);  // 16 header bytes + 18 data bytes = 34
  bytes.pop_back();
  CHECK(images_error(bytes, p) == p.string() +
                                      ": byte 33: truncated: dimensions 3x2x3 need 18 data "
                                      "bytes ending at byte 34, the file ends here");
  bytes = idx_images(3, 2, 3);
  bytes.push_back(0);
  CHECK(images_error(bytes, p) ==
        p.string() + ": byte 34: 1 trailing bytes after the 18 data bytes of dimensions 3x2x3");
  bytes.resize(10);
  CHECK(images_error(bytes, p) ==
        p.string() + ": byte 10: truncated header: 3 dimensions need 16 bytes");
  bytes = idx_images(3, 2, 3);
  bytes[11] = 0;  // rows = 0
  CHECK(images_error(bytes, p) == p.string() + ": byte 8: dimension 1 is zero");
}

TEST_CASE("IDX labels must be below 10 and as many as the images") {
  const auto dir = fresh_dir("idx-labels");
  write_file(dir / "labels", idx_labels({0, 10, 3}));
  CHECK(input_error([&] { read_idx_labels(dir / "labels"); }) ==
        (dir / "labels").string() +
            ": byte 9: label 10 of sample 1 is out of range (must be < 10)");
  write_file(dir / "images", idx_images(3, 2, 3));
  write_file(dir / "labels", idx_labels({0, 1}));
  CHECK(input_error([&] { read_idx_dataset(dir / "images", dir / "labels", "t"); }) ==
        (dir / "labels").string() + ": byte 4: 2 labels, but " + (dir / "images").string() +
            " holds 3 images");
}

TEST_CASE("a corrupt or truncated gzip stream is an input error at its uncompressed offset") {
  const auto dir = fresh_dir("idx-gzip");
  const auto path = dir / "images.gz";
  const auto good = gzip_bytes(idx_images(3, 2, 3), dir / "scratch");
  auto bad = good;
  bad[bad.size() - 8] ^= 0xff;  // the CRC-32 of the 34 uncompressed bytes
  write_file(path, bad);
  CHECK(input_error([&] { read_idx_images(path); }) ==
        path.string() + ": byte 34 (uncompressed): corrupt gzip stream (incorrect data check)");
  bad.assign(good.begin(), good.end() - 8);  // no CRC and length trailer
  write_file(path, bad);
  CHECK(input_error([&] { read_idx_images(path); }) ==
        path.string() + ": byte 34 (uncompressed): truncated gzip stream (unexpected end of file)");
  write_file(path, idx_images(3, 2, 3));  // plain bytes under a .gz name
  CHECK(input_error([&] { read_idx_images(path); }) ==
        path.string() + ": byte 0: not a gzip stream (no 1f 8b header)");
}

TEST_CASE("gzip: concatenated members read as one stream, other trailing bytes are rejected") {
  const auto dir = fresh_dir("idx-gzip-members");
  const auto path = dir / "images.gz";
  const auto plain = idx_images(3, 2, 3);
  auto joined = gzip_bytes({plain.begin(), plain.begin() + 20}, dir / "scratch");
  const auto second = gzip_bytes({plain.begin() + 20, plain.end()}, dir / "scratch");
  joined.insert(joined.end(), second.begin(), second.end());
  write_file(path, joined);
  CHECK(read_idx_images(path).file == plain);
  joined.push_back('x');
  write_file(path, joined);
  CHECK(input_error([&] { read_idx_images(path); }) ==
        path.string() + ": byte 34 (uncompressed): trailing bytes after the gzip stream");
}
