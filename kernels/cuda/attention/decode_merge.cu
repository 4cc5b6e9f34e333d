// Split-KV merge: combines the per-chunk (output, log2-sum-exp) partials of each
// (request, head) in ascending chunk order. Chunks past a request's context carry
// lse = -inf and weigh exactly zero. One warp per (request, head).
#include <cuda_runtime.h>

#include "kernels/cuda/attention/decode_common.cuh"
#include "kernels/cuda/attention/decode_launch.h"

namespace vt::kernels::cuda::attention {
namespace {

constexpr int kWarpsPerCta = 4;

__global__ void __launch_bounds__(kWarpsPerCta * 32) MergeChunksKernel(PagedDecodeParams p) {
  const int64_t head = static_cast<int64_t>(blockIdx.x) * kWarpsPerCta + threadIdx.x / 32;
  if (head >= static_cast<int64_t>(p.batch) * p.num_q_heads) return;
  const int lane = threadIdx.x % 32;
  const float* lse = p.partial_lse + head * p.num_chunks;

  float lse_max = -INFINITY;
  for (int c = 0; c < p.num_chunks; ++c) lse_max = fmaxf(lse_max, lse[c]);

  float weight_sum = 0.f;
  for (int c = 0; c < p.num_chunks; ++c) weight_sum += Rescale(lse[c], lse_max);
  const float inv = weight_sum > 0.f ? 1.f / weight_sum : 0.f;

  for (int d = lane; d < p.head_dim; d += 32) {
    float acc = 0.f;
    for (int c = 0; c < p.num_chunks; ++c) {
      const float w = Rescale(lse[c], lse_max);
      if (w != 0.f) acc += w * p.partial_out[(head * p.num_chunks + c) * p.head_dim + d];
    }
    p.out[head * p.head_dim + d] = FloatToBf16Bits(acc * inv);
  }
}

}  // namespace

cudaError_t LaunchMergeChunks(const PagedDecodeParams& p, cudaStream_t stream) {
  const int64_t heads = static_cast<int64_t>(p.batch) * p.num_q_heads;
  const int ctas = static_cast<int>((heads + kWarpsPerCta - 1) / kWarpsPerCta);
  MergeChunksKernel<<<ctas, kWarpsPerCta * 32, 0, stream>>>(p);
  return cudaGetLastError();
}

}  // namespace vt::kernels::cuda::attention
