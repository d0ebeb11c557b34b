#include "sim/agents/churn.hpp"

#include <algorithm>
#include <cmath>

#include "sim/core/error.hpp"

namespace dlsim {

Churn::Churn(const ChurnSpec& spec, uint32_t n, uint64_t seed)
    : spec_(spec), online_(n, 1), was_online_(n, 1), online_count_(n) {
  for (uint32_t i = 0; i < n; ++i) {
    rng_.emplace_back(seed, "churn", i);
    rejoin_rng_.emplace_back(seed, "rejoin", i);
  }
  if (spec.kind == ChurnKind::kTrace) {
    DLSIM_CHECK(spec.offline.size() == n, "a churn trace of {} agents for {}", spec.offline.size(),
                n);
    cursor_.assign(n, 0);
    return;
  }
  DLSIM_CHECK(spec.mean_online.ns > 0 && spec.mean_offline.ns > 0, "markov churn means");
  markov_state_.resize(n);
  next_switch_.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    markov_state_[i] = rng_[i].bernoulli(spec.start_offline) ? 0 : 1;
    next_switch_[i] =
        exponential_time(rng_[i], markov_state_[i] ? spec.mean_online : spec.mean_offline);
  }
}

bool Churn::markov_online(uint32_t i, SimTime now) {
  while (next_switch_[i] <= now) {  // one step per state change since the last round
    markov_state_[i] ^= 1;
    next_switch_[i] +=
        exponential_time(rng_[i], markov_state_[i] ? spec_.mean_online : spec_.mean_offline);
  }
  return markov_state_[i] != 0;
}

bool Churn::trace_online(uint32_t i, SimTime now) {
  const std::vector<OfflineInterval>& list = spec_.offline[i];
  uint32_t& c = cursor_[i];
  while (c < list.size() && list[c].until <= now) ++c;  // intervals over before now
  return c == list.size() || now < list[c].from;
}

void Churn::begin_round(SimTime now) {
  online_count_ = 0;
  for (uint32_t i = 0; i < online_.size(); ++i) {
    was_online_[i] = online_[i];
    online_[i] = spec_.kind == ChurnKind::kTrace ? trace_online(i, now) : markov_online(i, now);
    online_count_ += online_[i];
  }
}

void Churn::begin_iteration(uint32_t i, SimTime now) {
  online_count_ -= online_[i];
  was_online_[i] = online_[i];
  online_[i] = spec_.kind == ChurnKind::kTrace ? trace_online(i, now) : markov_online(i, now);
  online_count_ += online_[i];
}

void Churn::archive(StateArchive& ar) {
  ar.sized_vector(online_, "another number of agents");
  ar.sized_vector(was_online_, "another number of agents");
  for (RandomStream& r : rng_) r.archive(ar);
  for (RandomStream& r : rejoin_rng_) r.archive(ar);
  ar.sized_vector(markov_state_, "another number of agents");
  for (SimTime& t : next_switch_) ar.value(t.ns);
  ar.sized_vector(cursor_, "another number of agents");
  if (!ar.loading()) return;
  online_count_ = 0;  // derived from online_, which loading replaced
  for (uint8_t o : online_) online_count_ += o;
}

}  // namespace dlsim
