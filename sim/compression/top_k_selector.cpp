// TopKSelector: the histogram that finds a threshold when there is no hint, the exact radix
// select among the entries listed from a threshold (magnitude_list.hpp), and the hint.
#include "sim/compression/top_k_selector.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <numeric>

#include "sim/compression/magnitude_list.hpp"
#include "sim/core/error.hpp"

namespace dlsim {
namespace {

// What a listing pass found (index and key, ascending by index) and the radix select's copy.
struct Lists {
  std::vector<uint32_t> index, key, work;
  void reserve(size_t n) {
    if (index.size() >= n) return;
    index.resize(n);
    key.resize(n);
    work.resize(n);
  }
};

constexpr size_t kOverflow = SIZE_MAX;
constexpr int kTopShift = 20;  // the histogram's buckets: the top 11 key bits (sign excluded)

struct Bucket {
  uint32_t top;   // the histogram bucket (top 11 key bits) where the k-th largest lies
  uint64_t from;  // entries in it and above
};

// The bucket of the k-th largest of d > k entries, from a histogram kept in four parts:
// neighbouring values often share a bucket, and one counter incremented back to back waits for
// its own previous store each time.
Bucket kth_bucket(std::span<const float> x, std::span<const float> base, uint64_t k) {
  const size_t d = x.size();
  auto v = [&](size_t i) { return base.empty() ? x[i] : x[i] - base[i]; };
  constexpr uint32_t kBuckets = 2048;
  std::array<std::array<uint32_t, kBuckets>, 4> part{};
  size_t i = 0;
  for (; i + 4 <= d; i += 4)
    for (size_t p = 0; p < 4; ++p) ++part[p][magnitude_key(v(i + p)) >> kTopShift];
  for (; i < d; ++i) ++part[0][magnitude_key(v(i)) >> kTopShift];
  uint64_t need = k, from = 0;
  uint32_t b = kBuckets - 1;
  for (;; --b) {
    const uint64_t count = uint64_t{part[0][b]} + part[1][b] + part[2][b] + part[3][b];
    from += count;
    if (count >= need) return {b, from};
    need -= count;
  }
}

struct Kth {
  uint32_t key;   // the k-th largest key
  uint64_t ties;  // how many entries with that key are among the k largest (the lowest indices)
};

// The k-th largest of keys[0, n), n >= k >= 1: a radix select, 8 bits a round from the highest
// bit on which the keys differ (listed from a hint, they mostly share the exponent and the first
// mantissa bits), each round counting the keys left by the previous one and keeping those in
// the digit found. Four partial counts, as in kth_bucket.
Kth kth_largest(const uint32_t* keys, size_t n, uint64_t k, uint32_t* work) {
  uint32_t differ = 0;
  for (size_t i = 0; i < n; ++i) differ |= keys[i] ^ keys[0];
  int top = std::bit_width(differ);  // keys agree on their bits from `top` up
  uint32_t prefix = top == 32 ? 0 : keys[0] >> top << top;
  std::copy(keys, keys + n, work);
  std::array<std::array<uint32_t, 256>, 4> part;
  uint64_t need = k;
  size_t m = n;
  while (top > 0) {
    const int shift = std::max(top - 8, 0);
    const uint32_t mask = (1u << (top - shift)) - 1;
    for (auto& p : part) std::fill_n(p.begin(), mask + 1, 0u);
    size_t i = 0;
    for (; i + 4 <= m; i += 4)
      for (size_t p = 0; p < 4; ++p) ++part[p][(work[i + p] >> shift) & mask];
    for (; i < m; ++i) ++part[0][(work[i] >> shift) & mask];
    uint32_t digit = mask;  // the m keys left count at least `need`: the loop stops in range
    for (;; --digit) {
      const uint64_t count =
          uint64_t{part[0][digit]} + part[1][digit] + part[2][digit] + part[3][digit];
      if (count >= need) break;
      need -= count;
    }
    size_t kept = 0;
    for (i = 0; i < m; ++i) {
      const uint32_t w = work[i];
      work[kept] = w;
      kept += ((w >> shift) & mask) == digit;
    }
    m = kept;
    prefix |= digit << shift;
    top = shift;
  }
  return {prefix, need};
}

// out <- the listed entries above the k-th largest and the first `ties` equal to it, ascending.
void emit(const Lists& lists, size_t n, uint64_t k, Kth kth, std::vector<uint32_t>& out) {
  out.resize(k + 1);  // a spare slot for the branch-free writes
  uint64_t ties = kth.ties;
  size_t o = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint32_t key = lists.key[i];
    const bool tie = key == kth.key && ties > 0;
    out[o] = lists.index[i];
    o += key > kth.key || tie;
    ties -= tie;
  }
  out.resize(k);
  DLSIM_CHECK(o == k, "top-k selected {} of {}", o, k);
}

struct Outcome {
  uint32_t kth_key = 0;
  bool hinted = false;     // a hint was tried
  bool one_pass = false;   // ... and it listed enough entries
  size_t hint_listed = 0;  // what it listed (kOverflow: too many)
};

Outcome select_in(std::span<const float> x, std::span<const float> base, uint64_t k,
                  uint32_t hint_key, std::vector<uint32_t>& out) {
  const size_t d = x.size();
  // Per thread: compressing runs in the parallel phase. As long as the most entries listed.
  thread_local Lists lists;
  Outcome o;
  size_t n = 0;
  if (hint_key != 0) {
    // A hint that lists more than 4k (+ 4096) entries is too low to be worth finishing.
    o.hinted = true;
    const size_t cap = std::min<size_t>(d, 4 * k + 4096);
    lists.reserve(cap + kListSlack);
    n = list_at_least(x, base, hint_key, cap, lists.index.data(), lists.key.data());
    o.hint_listed = n;
    o.one_pass = n != kOverflow && n >= k;
  }
  if (!o.one_pass) {
    const Bucket bucket = kth_bucket(x, base, k);
    lists.reserve(bucket.from + kListSlack);
    n = list_at_least(x, base, bucket.top << kTopShift, bucket.from, lists.index.data(),
                      lists.key.data());
    DLSIM_CHECK(n == bucket.from, "listed {} entries from the k-th bucket, counted {}", n,
                bucket.from);
  }
  const Kth kth = kth_largest(lists.key.data(), n, k, lists.work.data());
  emit(lists, n, k, kth, out);
  o.kth_key = kth.key;
  return o;
}

}  // namespace

void TopKSelector::select(std::span<const float> x, std::span<const float> base, uint64_t k,
                          std::vector<uint32_t>& out) {
  const uint64_t d = x.size();
  DLSIM_CHECK(d <= UINT32_MAX, "a vector of {} entries is too long to index", d);
  DLSIM_CHECK(base.empty() || base.size() == d, "top-k of a difference of {} and {} entries", d,
              base.size());
  out.clear();
  if (k >= d) {
    out.resize(d);
    std::iota(out.begin(), out.end(), 0u);
    return;
  }
  if (k == 0) return;
  const Outcome o = select_in(x, base, k, hint_key_, out);
  // The margin follows what the hint listed: wider after a miss, narrower when it listed many
  // more entries than needed.
  if (o.hinted) {
    if (o.hint_listed == kOverflow)
      margin_ = std::max(margin_ * 0.5f, 1.0f / 1024);
    else if (o.hint_listed < k)
      margin_ = std::min(margin_ * 2.0f, 0.5f);
    else if (o.hint_listed > 2 * k)
      margin_ = std::max(margin_ * 0.8f, 1.0f / 1024);
  }
  ++(o.one_pass ? one_pass_ : two_pass_);
  set_hint(o.kth_key);
}

void TopKSelector::set_hint(uint32_t kth_key) {
  if (kth_key == 0) {  // the k-th largest is zero: any hint would list every entry
    hint_key_ = 0;
    return;
  }
  const float lower = std::bit_cast<float>(kth_key) * (1.0f - margin_);
  hint_key_ = std::max(magnitude_key(lower), 1u);
}

}  // namespace dlsim
