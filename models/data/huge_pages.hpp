// Large buffers that are filled once at load time: asking Linux for transparent huge pages cuts
// the page faults of first touch by 512x (200 MB of 4 KiB pages is ~50,000 faults, which cost
// more than the inflate itself on virtual machines). A no-op where unsupported.
#pragma once

#include <Eigen/Core>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace dlsim::models {

/// Advises the kernel to back the 2 MiB-aligned interior of [data, data + bytes) with huge pages.
/// Has no effect on the contents; failures are ignored (it is only a hint).
void advise_huge_pages(void* data, size_t bytes);

/// A (rows, cols) matrix with uninitialised values, advised as above before first touch.
Eigen::MatrixXf allocate_features(Eigen::Index rows, Eigen::Index cols);

/// Reserves `capacity` bytes in `buffer` (if more than it has) and advises them as above.
void reserve_advised(std::vector<uint8_t>& buffer, size_t capacity);

}  // namespace dlsim::models
