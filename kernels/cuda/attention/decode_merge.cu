// Split-KV merge: combines the per-chunk (output, log2-sum-exp) partials of each
// (request, head) in ascending chunk order. Chunks past a request's context carry
// lse = -inf and weigh exactly zero; a decode request of one live chunk was written whole by
// the attention kernel (SoleChunk) and is passed by. One CTA per (request, head), one thread per output
// element (LaunchMergeChunks): the chunk weights are computed once into shared memory.
//
// The kernel is a chain of loads, and what it costs is how many round trips the chain waits for: the
// request's context, then the chunks' lse values, then its partials (a loop unrolled by eight: four
// more for 32 chunks) took ~7 us at batches 1 and 8 under ncu on an H100, a third of a batch-1 call at
// 4k keys; issued together, 4.3-5.6 us (docs/BENCHMARKS.md, "the merge kernel's loads issued together").
// The context is read first, so that a request of one chunk loads nothing more; then the lse values
// and the first kEarlyChunks live partials are issued together, before any is used. Issuing the
// partials with the context instead cost a graph planned split (`vt serve` at a long max_model_len)
// 16 KB a head of every short request, 4% of qwen3-1.7b's TPOT median at c = 64 on an H100; the
// context's round trip first leaves split calls within -2.3 to +1.4% (dependent launches; both in
// docs/BENCHMARKS.md, "Fewer instructions a subtile in the persist arm"). A dead chunk weighs exactly
// zero and its partial is never added, so leaving it unloaded keeps the bits.
#include <cuda_runtime.h>

#include "kernels/cuda/attention/decode_common.cuh"
#include "kernels/cuda/attention/decode_launch.h"
#include "kernels/cuda/dependent_launch.h"

namespace vt::kernels::cuda::attention {
namespace {

// Every automatic split of a decode has at most kTargetChunks chunks (decode_params.h); longer plans
// (a fixed VT_ATTN_SPLIT, contexts past 128k keys, the tensor-core prefill's splits) load the rest
// after the weights, as before.
constexpr int kEarlyChunks = kTargetChunks;

__global__ void MergeChunksKernel(PagedDecodeParams p) {
  AwaitPrecedingGrid();
  __shared__ float weights[kMaxDecodeChunks];
  const int64_t head = blockIdx.x;
  const int d = threadIdx.x;
  // The context first (above): a request of one chunk was written whole where its chunk ends. The
  // whole CTA is one head, so it returns as one. The tensor-core prefill's merge (prefill_tc.cu) has
  // no contexts: its rows are always merged.
  const int b = static_cast<int>(head / p.num_q_heads);
  const int live = p.context_lens != nullptr ? LiveChunks(p, p.context_lens[b]) : p.num_chunks;  // <= num_chunks
  if (p.context_lens != nullptr && SoleChunkOf(p, live)) return;
  const float* partial = p.partial_out + head * p.num_chunks * p.head_dim + d;
  float early[kEarlyChunks];
#pragma unroll
  for (int c = 0; c < kEarlyChunks; ++c) early[c] = c < live ? partial[int64_t(c) * p.head_dim] : 0.f;
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

  float acc = 0.f;
#pragma unroll
  for (int c = 0; c < kEarlyChunks; ++c) {
    if (c < p.num_chunks && weights[c] != 0.f) acc += weights[c] * early[c];
  }
  for (int c = kEarlyChunks; c < p.num_chunks; ++c) {
    const float w = weights[c];
    if (w != 0.f) acc += w * partial[static_cast<int64_t>(c) * p.head_dim];
  }
  p.out[head * p.head_dim + d] = FloatToBf16Bits(acc * inv);
}

}  // namespace

cudaError_t LaunchMergeChunks(const PagedDecodeParams& p, cudaStream_t stream) {
  const unsigned heads = static_cast<unsigned>(p.batch) * p.num_q_heads;
  return LaunchDependent(MergeChunksKernel, heads, p.head_dim, 0, stream, p);
}

}  // namespace vt::kernels::cuda::attention
