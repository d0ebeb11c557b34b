// Counts heap allocations, for the tests that a hot path allocates nothing once warm. Include it
// in exactly one file of a test executable: it wraps glibc's malloc, calloc and realloc (which
// operator new and Eigen both call) for the whole executable and forwards to glibc's own
// implementation. Under AddressSanitizer, which owns malloc, nothing is wrapped and
// kCountsMalloc is false: those tests skip.
#pragma once

#include <atomic>
#include <cstddef>

#if defined(__SANITIZE_ADDRESS__) || !defined(__GLIBC__)
#define DLSIM_COUNT_MALLOC 0
#else
#define DLSIM_COUNT_MALLOC 1
#endif

namespace dlsim::testing {

inline constexpr bool kCountsMalloc = DLSIM_COUNT_MALLOC;

inline std::atomic<bool> g_counting{false};
inline std::atomic<long> g_allocations{0};

[[maybe_unused]] inline void count_allocation() {
  if (g_counting.load(std::memory_order_relaxed)) g_allocations.fetch_add(1);
}

/// Heap allocations made while f() runs (0 when !kCountsMalloc).
template <class F>
long allocations_during(F&& f) {
  g_allocations = 0;
  g_counting = true;
  f();
  g_counting = false;
  return g_allocations.load();
}

}  // namespace dlsim::testing

#if DLSIM_COUNT_MALLOC
extern "C" {
void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void* malloc(size_t n) {
  dlsim::testing::count_allocation();
  return __libc_malloc(n);
}
void* calloc(size_t n, size_t size) {
  dlsim::testing::count_allocation();
  return __libc_calloc(n, size);
}
void* realloc(void* p, size_t n) {
  dlsim::testing::count_allocation();
  return __libc_realloc(p, n);
}
}
#endif
