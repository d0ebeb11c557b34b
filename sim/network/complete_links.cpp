#include "sim/network/complete_links.hpp"

#include "sim/core/error.hpp"

namespace dlsim {

CompleteLinks::CompleteLinks(uint32_t nodes, const LinkSpec& spec, uint64_t seed)
    : spec_(spec), links_(nodes) {
  DLSIM_CHECK(spec.bandwidth_bps > 0, "link bandwidth must be positive");
  DLSIM_CHECK(spec.latency.ns >= 0 && spec.jitter.ns >= 0,
              "negative link latency {}ns or jitter {}ns", spec.latency.ns, spec.jitter.ns);
  DLSIM_CHECK(spec.loss_probability >= 0.0 && spec.loss_probability <= 1.0,
              "loss probability {} outside [0, 1]", spec.loss_probability);
  const bool draws = (spec.loss_probability > 0.0 && spec.loss_probability < 1.0) ||
                     spec.jitter.ns > 0;
  if (!draws) return;
  random_.reserve(nodes);
  for (uint32_t i = 0; i < nodes; ++i) random_.emplace_back(seed, "complete_link", i);
}

SimTime CompleteLinks::busy_until(uint32_t from, uint32_t to) const {
  for (const Remembered& r : links_[from])
    if (r.to == to) return r.busy_until;
  return SimTime{};
}

CompleteLinks::Remembered& CompleteLinks::remember(SimTime now, uint32_t from, uint32_t to) {
  std::vector<Remembered>& list = links_[from];
  Remembered* reusable = nullptr;
  for (Remembered& r : list) {
    if (r.to == to) return r;
    if (reusable == nullptr && r.busy_until <= now && r.load.idle(now)) reusable = &r;
  }
  // A forgotten link is one that never carried anything: its wire is free and no backlog is
  // being timed, which is what the reused entry had too.
  if (reusable == nullptr) reusable = &list.emplace_back();
  *reusable = Remembered{to, 0, SimTime{}, LoadWatch::State{}};
  return *reusable;
}

Link::Transfer CompleteLinks::offer(SimTime now, uint32_t from, uint32_t to, uint64_t bytes) {
  Remembered& link = remember(now, from, to);
  link.busy_until = max(now, link.busy_until) + transmission_time(bytes, spec_.bandwidth_bps);
  Link::Transfer transfer{link.busy_until + spec_.latency, false};
  if (random_.empty())
    transfer.lost = spec_.loss_probability >= 1.0;  // certain loss draws nothing
  else
    transfer.lost = draw_loss_and_jitter(random_[from], spec_, &transfer.arrival);
  return transfer;
}

std::optional<double> CompleteLinks::watch_load(SimTime now, uint32_t from, uint32_t to,
                                                uint64_t bytes, SimTime* since) {
  return LoadWatch::offered(remember(now, from, to).load, now, bytes, spec_.bandwidth_bps, since);
}

size_t CompleteLinks::remembered() const {
  size_t count = 0;
  for (const std::vector<Remembered>& list : links_) count += list.size();
  return count;
}

void CompleteLinks::archive(StateArchive& ar) {
  ar.expect<uint64_t>(links_.size(), "another network: complete underlay size");
  for (std::vector<Remembered>& list : links_) {
    ar.vector(list);
    if (ar.loading())
      for (const Remembered& r : list)
        if (r.to >= links_.size()) ar.fail("a remembered link to a node out of range");
  }
  for (RandomStream& r : random_) r.archive(ar);
}

}  // namespace dlsim
