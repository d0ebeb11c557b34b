#include "sim/metrics/comm_over_ranks.hpp"

#include "sim/core/state_io.hpp"

namespace dlsim {

CommRecorder comm_over_ranks(const CommRecorder& mine, RankCollectives& ranks) {
  std::vector<std::byte> bytes;
  {
    StateWriter writer(bytes);
    StateArchive ar(writer);
    save_part(mine, ar);
  }
  const std::vector<std::vector<std::byte>> all = ranks.gather_to_rank_0(bytes);
  CommRecorder total = mine;
  for (uint32_t r = 1; r < all.size(); ++r) {
    CommRecorder theirs(mine.node_count(), mine.tensor_names());
    StateReader reader(all[r], "another rank's communication counts");
    StateArchive ar(reader);
    theirs.archive(ar);
    reader.finish();
    total.add(theirs);
  }
  return total;
}

}  // namespace dlsim
