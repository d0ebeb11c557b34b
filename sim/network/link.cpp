#include "sim/network/link.hpp"

#include "sim/core/error.hpp"

namespace dlsim {

Link::Link(const LinkSpec& spec, RandomStream random)
    : spec_(spec), wire_(spec.bandwidth_bps), random_(random) {
  DLSIM_CHECK(spec.bandwidth_bps > 0, "link bandwidth must be positive");
  DLSIM_CHECK(spec.latency.ns >= 0 && spec.jitter.ns >= 0,
              "negative link latency {}ns or jitter {}ns", spec.latency.ns, spec.jitter.ns);
  DLSIM_CHECK(spec.loss_probability >= 0.0 && spec.loss_probability <= 1.0,
              "loss probability {} outside [0, 1]", spec.loss_probability);
}

Link::Transfer Link::offer(SimTime now, uint64_t size_bytes) {
  counters_.sent.add(size_bytes);
  return draw(Transfer{wire_.finish(now, size_bytes) + spec_.latency, false}, size_bytes);
}

Link::Transfer Link::offer_shared(uint64_t size_bytes) {
  counters_.sent.add(size_bytes);
  return draw(Transfer{spec_.latency, false}, size_bytes);
}

bool draw_loss_and_jitter(RandomStream& random, const LinkSpec& spec, SimTime* arrival) {
  // bernoulli() consumes no draw for p = 0 or 1, so a loss-free link keeps its stream for jitter.
  if (random.bernoulli(spec.loss_probability)) return true;
  if (spec.jitter.ns > 0)
    *arrival +=
        SimTime{static_cast<int64_t>(random.below(static_cast<uint64_t>(spec.jitter.ns) + 1))};
  return false;
}

Link::Transfer Link::draw(Transfer transfer, uint64_t size_bytes) {
  transfer.lost = draw_loss_and_jitter(random_, spec_, &transfer.arrival);
  if (transfer.lost) counters_.dropped.add(size_bytes);
  return transfer;
}

void Link::archive(StateArchive& ar) {
  SimTime busy_until = wire_.busy_until();
  ar.value(busy_until);
  if (ar.loading()) wire_.resume_busy_until(busy_until);
  ar.value(counters_);
  random_.archive(ar);
}

}  // namespace dlsim
