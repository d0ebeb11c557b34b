// The memory bandwidth one core gets here: the ceiling of a training run whose agents' parameters
// do not fit in cache (every pass over them streams from memory). A STREAM-style triad
// a = b + 0.5 c and a copy a = b over arrays far larger than the caches, one thread; prints the
// median and range over `runs` repetitions of each. Bytes counted: those read and written (the
// write-allocate reads of a are not counted, as in STREAM).
// Usage: stream_bench [RUNS] [MIB_PER_ARRAY]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

template <class F>
void report(const char* name, double bytes, int runs, F&& pass) {
  std::vector<double> rates;
  for (int r = 0; r < runs; ++r) {
    const auto start = std::chrono::steady_clock::now();
    pass();
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    rates.push_back(bytes / s * 1e-9);
  }
  std::sort(rates.begin(), rates.end());
  std::printf("%-6s median %6.1f GB/s  (min %6.1f, max %6.1f, %d runs)\n", name,
              rates[rates.size() / 2], rates.front(), rates.back(), runs);
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 9;
  const size_t mib = argc > 2 ? static_cast<size_t>(std::max(1, std::atoi(argv[2]))) : 64;
  const size_t n = mib << 18;  // floats per array
  std::vector<float> a(n, 1.0f), b(n, 2.0f), c(n, 3.0f);
  std::printf("one thread, 3 arrays of %zu MiB\n", mib);
  report("copy", 2.0 * 4.0 * static_cast<double>(n), runs,
         [&] { std::copy(b.begin(), b.end(), a.begin()); });
  report("triad", 3.0 * 4.0 * static_cast<double>(n), runs, [&] {
    for (size_t i = 0; i < n; ++i) a[i] = b[i] + 0.5f * c[i];
  });
  // Keeps the passes from being optimised away.
  return a[n / 2] == 0.0f ? 1 : 0;
}
