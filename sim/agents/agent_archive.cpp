#include "sim/agents/agent_archive.hpp"

#include <span>
#include <unordered_map>

namespace dlsim {

void AgentArchive::params(ParamVector& x) {
  span(std::span<float>(x.data(), static_cast<size_t>(x.size())));
}

// Snapshots and compressed messages are the one place where the two directions differ: saving
// numbers the buffers by identity, loading looks the numbers up.
void AgentArchive::snapshot(Snapshot& s) {
  if (loading())
    s = load_snapshot();
  else
    save_snapshot(s);
}

namespace {

// Saving: p's number in `ids` (0 for null), numbering it when first seen; `fresh` then.
template <class T>
uint32_t number(std::unordered_map<const T*, uint32_t>& ids, const T* p, bool& fresh) {
  fresh = false;
  if (p == nullptr) return 0;
  const auto [it, added] = ids.emplace(p, static_cast<uint32_t>(ids.size() + 1));
  fresh = added;
  return it->second;
}

}  // namespace

void AgentArchive::save_snapshot(const Snapshot& s) {
  bool fresh = false;
  uint32_t id = number(ids_, s.get(), fresh);
  value(id);
  if (!fresh) return;
  uint64_t size = static_cast<uint64_t>(s->size());
  value(size);
  params(const_cast<ParamVector&>(*s));  // saving only reads it
}

uint32_t AgentArchive::load_number(size_t known, const char* what) {
  uint32_t id = 0;
  value(id);
  if (id > known + 1) fail(what);
  return id;
}

Snapshot AgentArchive::load_snapshot() {
  const uint32_t id = load_number(table_.size(), "a snapshot number out of sequence");
  if (id == 0) return nullptr;
  if (id <= table_.size()) return table_[id - 1];
  uint64_t size = 0;
  value(size);
  auto x = std::make_shared<ParamVector>(static_cast<Eigen::Index>(size));
  params(*x);
  table_.push_back(std::move(x));
  return table_.back();
}

void AgentArchive::delta(Delta& d) {
  if (loading())
    d = load_delta();
  else
    save_delta(d);
}

void AgentArchive::save_delta(const Delta& d) {
  bool fresh = false;
  uint32_t id = number(delta_ids_, d.get(), fresh);
  value(id);
  if (fresh) const_cast<CompressedVector&>(*d).archive(*this);  // saving only reads it
}

Delta AgentArchive::load_delta() {
  const uint32_t id = load_number(deltas_.size(), "a compressed message number out of sequence");
  if (id == 0) return nullptr;
  if (id <= deltas_.size()) return deltas_[id - 1];
  auto d = std::make_shared<CompressedVector>();
  d->archive(*this);
  deltas_.push_back(std::move(d));
  return deltas_.back();
}

void AgentArchive::parts(Parts& p) {  // a few indices: written with every holder
  bool present = p != nullptr;
  value(present);
  if (!present) return p.reset();
  std::vector<uint32_t> indices;
  if (!loading()) indices = *p;
  vector(indices);
  if (loading()) p = std::make_shared<const std::vector<uint32_t>>(std::move(indices));
}

void AgentArchive::message(Message& m) {
  value(m.kind);
  value(m.from);
  value(m.to);
  snapshot(m.params);
  value(m.weight);
  value(m.stage);
  value(m.size_bytes);
  delta(m.delta);
  value(m.uncompressed_bytes);
  parts(m.parts);
}

void AgentArchive::fixed_list(std::span<Snapshot> list) {
  expect<uint64_t>(list.size(), "another graph: a list of copies differs");
  for (Snapshot& s : list) snapshot(s);
}

void archive_agent(Agent& a, AgentArchive& ar) {
  ar.expect(a.id, "agents out of order");
  ar.params(a.x);
  ar.value(a.loss);
  ar.value(a.iteration);
  a.trigger_rng.archive(ar);
  a.peer_rng.archive(ar);
  a.compress_rng.archive(ar);
  a.learner->archive(ar);
}

}  // namespace dlsim
