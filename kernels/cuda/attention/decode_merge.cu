// Split-KV merge: combines the per-chunk (output, log2-sum-exp) partials of each
// (request, head) in ascending chunk order. Chunks past a request's context carry
// lse = -inf and weigh exactly zero; a decode request of one live chunk was written whole by
// the attention kernel (SoleChunk) and is passed by. One CTA per (request, head), one thread per output
// element: the chunk weights are computed once into shared memory, and each thread's
// loads of its element across chunks are independent, so they overlap instead of
// queueing behind one another.
#include <cuda_runtime.h>

#include "kernels/cuda/attention/decode_common.cuh"
#include "kernels/cuda/attention/decode_launch.h"
#include "kernels/cuda/dependent_launch.h"

namespace vt::kernels::cuda::attention {
namespace {

__global__ void MergeChunksKernel(PagedDecodeParams p) {
  AwaitPrecedingGrid();
  __shared__ float weights[kMaxDecodeChunks];
  const int64_t head = blockIdx.x;
  // The tensor-core prefill's merge (prefill_tc.cu) has no contexts: its rows are always merged.
  if (p.context_lens != nullptr && SoleChunk(p, static_cast<int>(head / p.num_q_heads))) return;
  const float* lse = p.partial_lse + head * p.num_chunks;
  for (int c = threadIdx.x; c < p.num_chunks; c += blockDim.x) weights[c] = lse[c];
  __syncthreads();

  // Every thread reads the same shared values in the same order: identical results, no barrier.
  float lse_max = -INFINITY;
  for (int c = 0; c < p.num_chunks; ++c) lse_max = fmaxf(lse_max, weights[c]);
  __syncthreads();
  for (int c = threadIdx.x; c < p.num_chunks; c += blockDim.x) weights[c] = Rescale(weights[c], lse_max);
  __syncthreads();
  float weight_sum = 0.f;
  for (int c = 0; c < p.num_chunks; ++c) weight_sum += weights[c];
  const float inv = weight_sum > 0.f ? 1.f / weight_sum : 0.f;

  const float* partial = p.partial_out + head * p.num_chunks * p.head_dim;
  for (int d = threadIdx.x; d < p.head_dim; d += blockDim.x) {
    float acc = 0.f;
#pragma unroll 8
    for (int c = 0; c < p.num_chunks; ++c) {
      const float w = weights[c];
      if (w != 0.f) acc += w * partial[static_cast<int64_t>(c) * p.head_dim + d];
    }
    p.out[head * p.head_dim + d] = FloatToBf16Bits(acc * inv);
  }
}

}  // namespace

cudaError_t LaunchMergeChunks(const PagedDecodeParams& p, cudaStream_t stream) {
  const unsigned heads = static_cast<unsigned>(p.batch) * p.num_q_heads;
  return LaunchDependent(MergeChunksKernel, heads, p.head_dim, 0, stream, p);
}

}  // namespace vt::kernels::cuda::attention
