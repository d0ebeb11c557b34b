// Message payloads (sim/agents/payload.hpp): each algorithm reads back its own type, and a
// message in flight saves and loads with its payload through one archive function.
#include <doctest/doctest.h>

#include <memory>
#include <vector>

#include "sim/agents/agent_archive.hpp"
#include "sim/agents/message.hpp"
#include "sim/core/state_io.hpp"
#include "tests/core/scratch_file.hpp"

using namespace dlsim;

namespace {

Message with(Payload p) {
  return Message(MessageKind::kParams, AgentId{1}, AgentId{2}, nullptr, 40, std::move(p));
}

}  // namespace

TEST_CASE("a message's payload is held inline and read by its own type only") {
  const Message m = with(PushSumWeight{0.25});
  CHECK(m.payload_as<PushSumWeight>().weight == 0.25);
  CHECK(m.payload_if<ReduceStage>() == nullptr);
  CHECK_THROWS(m.payload_as<ReduceStage>());
  CHECK(payload_tensors(m.payload) == nullptr);
  CHECK_FALSE(payload_carries_model(m.payload));
  const Parts parts = std::make_shared<const std::vector<uint32_t>>(std::vector<uint32_t>{0, 2});
  CHECK(payload_tensors(with(TensorParts{parts, 3}).payload) == parts.get());
  CHECK(payload_carries_model(
      with(CompressedChange{std::make_shared<CompressedVector>(), 1}).payload));
}

TEST_CASE(
    "every payload type survives a checkpoint, and a delta shared by two messages stays one") {
  auto delta = std::make_shared<CompressedVector>();
  delta->dimension = 3;
  delta->values = {1.0f, -2.0f, 0.5f};
  delta->wire_bytes = 12;
  const Parts parts = std::make_shared<const std::vector<uint32_t>>(std::vector<uint32_t>{1});
  std::vector<Message> saved = {with({}),
                                with(PushSumWeight{0.125}),
                                with(ReduceStage{5}),
                                with(CompressedChange{delta, 7}),
                                with(CompressedChange{delta, 8}),
                                with(TensorParts{parts, 4})};
  const std::string path = testing::scratch_file("agents", "message_payload.ckpt");
  {
    StateWriter out(path);
    AgentArchive ar(out);
    ar.list(saved);
    out.finish();
  }
  std::vector<Message> loaded;
  {
    StateReader in(path);
    AgentArchive ar(in);
    ar.list(loaded);
    in.finish();
  }
  REQUIRE(loaded.size() == saved.size());
  for (size_t i = 0; i < saved.size(); ++i) {
    CHECK(loaded[i].payload.index() == saved[i].payload.index());
    CHECK(loaded[i].size_bytes == 40);
  }
  CHECK(std::holds_alternative<std::monostate>(loaded[0].payload));
  CHECK(loaded[1].payload_as<PushSumWeight>().weight == 0.125);
  CHECK(loaded[2].payload_as<ReduceStage>().stage == 5);
  const CompressedChange& c = loaded[3].payload_as<CompressedChange>();
  CHECK(c.sequence == 7);
  CHECK(c.delta->values == delta->values);
  CHECK(c.delta == loaded[4].payload_as<CompressedChange>().delta);  // one buffer, as saved
  CHECK(loaded[4].payload_as<CompressedChange>().sequence == 8);
  CHECK(*loaded[5].payload_as<TensorParts>().parts == std::vector<uint32_t>{1});
  CHECK(loaded[5].payload_as<TensorParts>().sequence == 4);
}
