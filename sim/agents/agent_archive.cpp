#include "sim/agents/checkpoint_io.hpp"

#include <span>

namespace dlsim {

void save_params(const ParamVector& x, StateWriter& out) {
  out.put_span(std::span<const float>(x.data(), static_cast<size_t>(x.size())));
}

void load_params(ParamVector& x, StateReader& in) {
  in.get_span(std::span<float>(x.data(), static_cast<size_t>(x.size())));
}

void SnapshotSaver::put(const Snapshot& s) {
  if (!s) {
    out_.put<uint32_t>(0);
    return;
  }
  const auto [it, fresh] = ids_.emplace(s.get(), static_cast<uint32_t>(ids_.size() + 1));
  out_.put(it->second);
  if (!fresh) return;
  out_.put<uint64_t>(static_cast<uint64_t>(s->size()));
  save_params(*s, out_);
}

Snapshot SnapshotLoader::get_snapshot() {
  const auto id = in_.get<uint32_t>();
  if (id == 0) return nullptr;
  if (id <= table_.size()) return table_[id - 1];
  if (id != table_.size() + 1) in_.fail("a snapshot number out of sequence");
  const auto size = in_.get<uint64_t>();
  auto x = std::make_shared<ParamVector>(static_cast<Eigen::Index>(size));
  load_params(*x, in_);
  table_.push_back(std::move(x));
  return table_.back();
}

void SnapshotSaver::put(const Message& m) {
  out_.put(m.kind);
  out_.put(m.from);
  out_.put(m.to);
  put(m.params);
  out_.put(m.weight);
  out_.put(m.stage);
  out_.put(m.size_bytes);
  put(m.delta);
  out_.put(m.uncompressed_bytes);
  put(m.parts);
}

void SnapshotSaver::put(const Parts& p) {  // a few indices: written with every holder
  out_.put<bool>(p != nullptr);
  if (p) out_.put_vector(*p);
}

Parts SnapshotLoader::get_parts() {
  if (!in_.get<bool>()) return nullptr;
  return std::make_shared<const std::vector<uint32_t>>(in_.get_vector<uint32_t>());
}

void SnapshotSaver::put(const Delta& d) {
  if (!d) {
    out_.put<uint32_t>(0);
    return;
  }
  const auto next = static_cast<uint32_t>(delta_ids_.size() + 1);
  const auto [it, fresh] = delta_ids_.emplace(d.get(), next);
  out_.put(it->second);
  if (fresh) d->save(out_);
}

Delta SnapshotLoader::get_delta() {
  const auto id = in_.get<uint32_t>();
  if (id == 0) return nullptr;
  if (id <= deltas_.size()) return deltas_[id - 1];
  if (id != deltas_.size() + 1) in_.fail("a compressed message number out of sequence");
  auto d = std::make_shared<CompressedVector>();
  d->load(in_);
  deltas_.push_back(std::move(d));
  return deltas_.back();
}

Message SnapshotLoader::get_message() {
  Message m;
  m.kind = in_.get<MessageKind>();
  m.from = in_.get<AgentId>();
  m.to = in_.get<AgentId>();
  m.params = get_snapshot();
  m.weight = in_.get<double>();
  m.stage = in_.get<uint32_t>();
  m.size_bytes = in_.get<uint64_t>();
  m.delta = get_delta();
  m.uncompressed_bytes = in_.get<uint64_t>();
  m.parts = get_parts();
  return m;
}

void SnapshotSaver::put_all(std::span<const Snapshot> list) {
  out_.put<uint64_t>(list.size());
  for (const Snapshot& s : list) put(s);
}

void SnapshotSaver::put_all(std::span<const Message> list) {
  out_.put<uint64_t>(list.size());
  for (const Message& m : list) put(m);
}

void SnapshotLoader::get_all(std::vector<Snapshot>& list) {
  list.clear();
  for (auto n = in_.get<uint64_t>(); n > 0; --n) list.push_back(get_snapshot());
}

void SnapshotLoader::get_all(std::vector<Message>& list) {
  list.clear();
  for (auto n = in_.get<uint64_t>(); n > 0; --n) list.push_back(get_message());
}

void SnapshotLoader::get_into(std::span<Snapshot> list) {
  if (in_.get<uint64_t>() != list.size()) in_.fail("another graph: a list of copies differs");
  for (Snapshot& s : list) s = get_snapshot();
}

void save_agent(const Agent& a, StateWriter& out) {
  out.put(a.id);
  save_params(a.x, out);
  out.put(a.loss);
  out.put(a.iteration);
  a.trigger_rng.save(out);
  a.peer_rng.save(out);
  a.compress_rng.save(out);
  a.learner->save(out);
}

void load_agent(Agent& a, StateReader& in) {
  if (in.get<AgentId>() != a.id) in.fail("agents out of order");
  load_params(a.x, in);
  a.loss = in.get<float>();
  a.iteration = in.get<int64_t>();
  a.trigger_rng.load(in);
  a.peer_rng.load(in);
  a.compress_rng.load(in);
  a.learner->load(in);
}

}  // namespace dlsim
