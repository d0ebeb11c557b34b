// Slot allocation and the checkpoint of the live messages (messages.hpp).
#include "sim/network/messages.hpp"

namespace dlsim {

// Free slots are reused last-freed first: the order is part of the run (and of a checkpoint).
uint32_t Messages::allocate() {
  if (free_slots_.empty()) {
    slots_.emplace_back();
    return static_cast<uint32_t>(slots_.size() - 1);
  }
  const uint32_t slot = free_slots_.back();
  free_slots_.pop_back();
  return slot;
}

void Messages::archive(StateArchive& ar) {
  ar.vector(slots_);
  ar.vector(free_slots_);
  if (ar.loading())
    for (uint32_t f : free_slots_)
      if (f >= slots_.size()) ar.fail("a free message slot out of range");
}

}  // namespace dlsim
