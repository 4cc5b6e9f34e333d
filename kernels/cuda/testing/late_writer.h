// For tests only (never linked into vt). A kernel that lets the next kernel in its stream start at
// once, as the first grid of a programmatic dependent launch (kernels/cuda/dependent_launch.h), and
// writes only after it has spun for a while: what a dependent kernel must not read before it waits.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

namespace vt::testing {

struct CopyPiece {
  void* dst = nullptr;
  const void* src = nullptr;
  size_t bytes = 0;
};

// Enqueues one kernel on `stream` that triggers its dependents, spins `spin_us` microseconds and
// then copies every piece; the pieces are uploaded (synchronously) first.
cudaError_t LaunchLateWriter(const std::vector<CopyPiece>& pieces, unsigned spin_us, cudaStream_t stream);

}  // namespace vt::testing
