#include "kernels/cuda/testing/sequential_merge.h"

#include "kernels/cuda/attention/decode_common.cuh"

namespace vt::testing {
namespace {

using kernels::cuda::PagedDecodeParams;
using kernels::cuda::FloatToBf16Bits;
using kernels::cuda::attention::Rescale;

__global__ void SequentialMergeKernel(PagedDecodeParams p) {
  const int64_t head = blockIdx.x;
  const float* lse = p.partial_lse + head * p.num_chunks;
  const float* partial = p.partial_out + head * p.num_chunks * p.head_dim;
  for (int d = threadIdx.x; d < p.head_dim; d += blockDim.x) {
    float lse_max = -INFINITY;
    for (int c = 0; c < p.num_chunks; ++c) lse_max = fmaxf(lse_max, lse[c]);
    float weight_sum = 0.f;
    for (int c = 0; c < p.num_chunks; ++c) weight_sum += Rescale(lse[c], lse_max);
    const float inv = weight_sum > 0.f ? 1.f / weight_sum : 0.f;
    float acc = 0.f;
    for (int c = 0; c < p.num_chunks; ++c) {
      const float w = Rescale(lse[c], lse_max);
      if (w != 0.f) acc += w * partial[static_cast<int64_t>(c) * p.head_dim + d];
    }
    p.out[head * p.head_dim + d] = FloatToBf16Bits(acc * inv);
  }
}

}  // namespace

cudaError_t LaunchSequentialMerge(const PagedDecodeParams& p, cudaStream_t stream) {
  SequentialMergeKernel<<<static_cast<unsigned>(p.batch) * p.num_q_heads, 128, 0, stream>>>(p);
  return cudaGetLastError();
}

}  // namespace vt::testing
