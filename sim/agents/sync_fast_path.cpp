#include "sim/agents/sync_fast_path.hpp"

#include <algorithm>

#include "sim/core/error.hpp"

namespace dlsim {

void update_in_blocks(SyncFastPath& path, std::span<Agent> agents) {
  const Eigen::Index block = path.update_block_size();
  DLSIM_CHECK(block > 0, "update_in_blocks on a path without a block size");
  Eigen::Index size = 0;
  for (Agent& a : agents) {
    path.update_begin(a);
    size = std::max(size, a.x.size());
  }
  for (Eigen::Index start = 0; start < size; start += block)
    for (Agent& a : agents)
      if (start < a.x.size()) path.update_block(a, start, std::min(block, a.x.size() - start));
  for (Agent& a : agents) path.update_end(a);
}

}  // namespace dlsim
