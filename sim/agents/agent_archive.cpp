#include "sim/agents/agent_archive.hpp"

#include <span>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <variant>

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
  uint32_t id = number(numbers_->ids, s.get(), fresh);
  value(id);
  if (!fresh) return;
  numbers_->table.push_back(s);
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
  std::vector<Snapshot>& table = numbers_->table;
  const uint32_t id = load_number(table.size(), "a snapshot number out of sequence");
  if (id == 0) return nullptr;
  if (id <= table.size()) return table[id - 1];
  uint64_t size = 0;
  value(size);
  auto x = pool_ ? pool_->take(static_cast<Eigen::Index>(size))
                 : std::make_shared<ParamVector>(static_cast<Eigen::Index>(size));
  params(*x);
  table.push_back(std::move(x));
  return table.back();
}

void AgentArchive::delta(Delta& d) {
  if (loading())
    d = load_delta();
  else
    save_delta(d);
}

void AgentArchive::save_delta(const Delta& d) {
  bool fresh = false;
  uint32_t id = number(numbers_->delta_ids, d.get(), fresh);
  value(id);
  if (!fresh) return;
  numbers_->deltas.push_back(d);
  const_cast<CompressedVector&>(*d).archive(*this);  // saving only reads it
}

Delta AgentArchive::load_delta() {
  std::vector<Delta>& deltas = numbers_->deltas;
  const uint32_t id = load_number(deltas.size(), "a compressed message number out of sequence");
  if (id == 0) return nullptr;
  if (id <= deltas.size()) return deltas[id - 1];
  auto d = std::make_shared<CompressedVector>();
  d->archive(*this);
  deltas.push_back(std::move(d));
  return deltas.back();
}

namespace {

// Loading: the payload of type number `tag`, default-made (Payload's own order: payload.hpp).
template <size_t... I>
Payload payload_of_tag(size_t tag, std::index_sequence<I...>) {
  static constexpr Payload (*kMake[])() = {+[] { return Payload(std::in_place_index<I>); }...};
  return kMake[tag]();
}

}  // namespace

void AgentArchive::payload(Payload& p) {
  constexpr size_t kTypes = std::variant_size_v<Payload>;
  auto tag = static_cast<uint8_t>(p.index());
  value(tag);
  if (loading()) {
    if (tag >= kTypes) fail("a message payload of unknown type");
    p = payload_of_tag(tag, std::make_index_sequence<kTypes>{});
  }
  std::visit(
      [this](auto& v) {
        if constexpr (!std::is_same_v<std::decay_t<decltype(v)>, std::monostate>) v.archive(*this);
      },
      p);
}

void AgentArchive::message(Message& m) {
  value(m.kind);
  value(m.from);
  value(m.to);
  snapshot(m.params);
  value(m.size_bytes);
  value(m.uncompressed_bytes);
  payload(m.payload);
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
