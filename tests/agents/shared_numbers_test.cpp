// Archives that share their snapshots' numbers (AgentArchive::share_numbers): the messages one
// window sends another rank, each written by its own archive, carry a snapshot they share once,
// and the receiving side gets one buffer back for all of them.
#include <doctest/doctest.h>

#include <memory>
#include <vector>

#include "sim/agents/agent_archive.hpp"
#include "sim/agents/message.hpp"
#include "sim/core/state_io.hpp"

using namespace dlsim;

namespace {

Message to(uint32_t agent, Snapshot model) {
  return Message(MessageKind::kParams, AgentId{0}, AgentId{agent}, std::move(model), 4000, {});
}

// Each message in its own buffer, as MessageShipping::pack writes them.
std::vector<std::vector<std::byte>> write_each(std::vector<Message>& messages,
                                               SnapshotNumbers* shared) {
  std::vector<std::vector<std::byte>> out;
  for (Message& m : messages) {
    std::vector<std::byte>& bytes = out.emplace_back();
    StateWriter writer(bytes);
    AgentArchive ar(writer);
    if (shared) ar.share_numbers(*shared);
    ar.message(m);
  }
  return out;
}

}  // namespace

TEST_CASE(
    "messages whose archives share numbers carry a shared snapshot once and get it back shared") {
  auto model = std::make_shared<ParamVector>(ParamVector::LinSpaced(1000, -1.0f, 1.0f));
  std::vector<Message> sent{to(1, model), to(2, model), to(3, model)};
  SnapshotNumbers numbers;
  const auto shared = write_each(sent, &numbers);
  const auto apart = write_each(sent, nullptr);
  // The first carries the model, the others its number.
  CHECK(shared[0].size() == apart[0].size());
  CHECK(shared[1].size() + 1000 * sizeof(float) < apart[1].size());
  CHECK(shared[2].size() == shared[1].size());
  // While the batch lasts its numbers hold the model, so no new buffer can take its address.
  CHECK(numbers.table.size() == 1);
  CHECK(numbers.table[0] == model);

  SnapshotNumbers received;
  std::vector<Message> loaded;
  for (const std::vector<std::byte>& bytes : shared) {
    StateReader reader(bytes, "a message");
    AgentArchive ar(reader);
    ar.share_numbers(received);
    ar.message(loaded.emplace_back());
    reader.finish();
  }
  REQUIRE(loaded[0].params != nullptr);
  CHECK(*loaded[0].params == *model);
  CHECK(loaded[1].params == loaded[0].params);
  CHECK(loaded[2].params == loaded[0].params);
  CHECK(loaded[2].to.value == 3);

  // Read on its own, without the numbers of the message that carried the model, it cannot be
  // read: its number is taken for a new snapshot, and the bytes after it are not one.
  StateReader alone(shared[1], "a message");
  AgentArchive ar(alone);
  Message m;
  CHECK_THROWS(ar.message(m));
}
