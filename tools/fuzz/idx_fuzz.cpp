// Fuzzes the IDX reader of MNIST / Fashion-MNIST: the input is read as an images file and as a
// labels file (the two headers differ in rank only), through zlib when it starts with the gzip
// magic (the file is then named *.gz, as the real files are). An images file that reads is
// paired with a labels file of as many zeros and loaded as a Dataset, the entry point that
// load_dataset uses; capped at 4096 images so the harness stays fast.
#include "models/data/idx_reader.hpp"
#include "tools/fuzz/fuzz_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dlsim;
  const bool gzip = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
  const std::string path =
      fuzz::write_file(gzip ? "images.idx.gz" : "images.idx", fuzz::as_text(data, size));
  fuzz::expect_input_errors_only([&] { (void)models::read_idx_labels(path); });
  fuzz::expect_input_errors_only([&] {
    const models::IdxImages images = models::read_idx_images(path);
    if (images.count > 4096) return;
    std::string labels = {0, 0, 8, 1};  // magic of a labels file, then the count, big-endian
    for (int shift = 24; shift >= 0; shift -= 8) labels += static_cast<char>(images.count >> shift);
    labels.append(images.count, '\0');
    const std::string labels_path = fuzz::write_file("labels.idx", labels);
    const models::Dataset d = models::read_idx_dataset(path, labels_path, "fuzz");
    if (d.labels.size() != images.count) std::abort();
  });
  return 0;
}
