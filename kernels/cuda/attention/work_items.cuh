// The device half of the persistent decode arms' schedule (work_schedule.h holds the rest, in plain
// C++): every CTA sums the requests' weights into a prefix in shared memory, and marks the chunk slots
// past each request's context for the merge.
#pragma once

#include <cstdint>

#include "kernels/cuda/attention/decode_common.cuh"
#include "kernels/cuda/attention/work_schedule.h"

namespace vt::kernels::cuda::attention {

// Weight prefix over the batch: prefix[b] = units of requests 0 .. b-1 (one KV head each);
// warp_sums is kWarps ints of shared memory. With `live_chunks` (one more int of shared memory) it
// also counts the batch's live chunks (one KV head each) there. Every thread of the CTA calls it; it
// ends with a barrier.
template <class Weights, int kWarps>
__device__ void ScanContexts(const PagedDecodeParams& p, int* warp_sums, int* prefix, int* live_chunks = nullptr) {
  constexpr int kThreads = kWarps * 32;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int carry = 0, chunks = 0;
  if (threadIdx.x == 0) {
    prefix[0] = 0;
    if (live_chunks != nullptr) *live_chunks = 0;  // visible after the loop's first barrier
  }
  for (int base = 0; base < p.batch; base += kThreads) {
    const int i = base + threadIdx.x;
    const int context = i < p.batch ? p.context_lens[i] : 0;
    if (live_chunks != nullptr && i < p.batch) chunks += LiveChunks(p, context);
    int v = i < p.batch ? RequestUnits<Weights>(p, context) : 0;
#pragma unroll
    for (int offset = 1; offset < 32; offset *= 2) {
      const int up = __shfl_up_sync(0xffffffffu, v, offset);
      if (lane >= offset) v += up;
    }
    if (lane == 31) warp_sums[warp] = v;
    __syncthreads();
    int before = carry, round = 0;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
      if (w < warp) before += warp_sums[w];
      round += warp_sums[w];
    }
    if (i < p.batch) prefix[i + 1] = before + v;
    carry += round;
    __syncthreads();  // warp_sums is rewritten by the next round
  }
  if (live_chunks == nullptr) return;
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) chunks += __shfl_down_sync(0xffffffffu, chunks, offset);
  if (lane == 0 && chunks > 0) atomicAdd(live_chunks, chunks);  // integers: any order, the same sum
  __syncthreads();
}

// The merge reads every chunk slot of a split request: the ones past its context weigh nothing
// (lse = -inf). Requests are dealt out over the CTAs of kThreads threads for these writes; every
// thread calls it.
template <int kThreads>
__device__ __forceinline__ void MarkEmptyChunks(const PagedDecodeParams& p) {
  if (p.num_chunks <= 1) return;
  for (int b = blockIdx.x; b < p.batch; b += gridDim.x) {
    const int live = LiveChunks(p, p.context_lens[b]);
    if (live == 1) continue;  // written whole where its chunk ends; the merge passes it by
    const int dead = p.num_chunks - live;
    for (int i = threadIdx.x; i < dead * p.num_q_heads; i += kThreads) {
      p.partial_lse[(int64_t(b) * p.num_q_heads + i / dead) * p.num_chunks + live + i % dead] = -INFINITY;
    }
  }
}

}  // namespace vt::kernels::cuda::attention
