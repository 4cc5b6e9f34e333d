// A grid-wide barrier for kernels launched cooperatively (LaunchPlacement::cooperative: every CTA
// resident, so none waits for a CTA that cannot start). Two words of device memory, zero before
// their first use, are reused by every later launch: the last CTA to arrive resets the count before
// it moves the generation on, so a barrier leaves them ready for the next one.
#pragma once

#include <cuda/atomic>

namespace vt::kernels::cuda {

inline constexpr int kGridBarrierWords = 2;  // arrived count, generation

// Every thread of every CTA calls it; returns once all gridDim.x CTAs have called it, with their
// writes before it visible to the whole grid after it.
__device__ __forceinline__ void GridBarrier(unsigned* state) {
  __syncthreads();
  if (threadIdx.x == 0) {
    ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device> arrived(state[0]), generation(state[1]);
    // Read before arriving: the generation cannot move on until this CTA has arrived.
    const unsigned seen = generation.load(::cuda::memory_order_relaxed);
    __threadfence();  // the CTA's writes (ordered before thread 0's by __syncthreads) go first
    if (arrived.fetch_add(1, ::cuda::memory_order_acq_rel) == gridDim.x - 1) {
      arrived.store(0, ::cuda::memory_order_relaxed);
      generation.store(seen + 1, ::cuda::memory_order_release);
    } else {
      while (generation.load(::cuda::memory_order_acquire) == seen) {
      }
    }
    __threadfence();
  }
  __syncthreads();
}

}  // namespace vt::kernels::cuda
