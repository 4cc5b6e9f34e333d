// Split-KV merge kernel: one CTA per (request, query head), one thread per output element
// (decode_merge.cuh).
#include <cuda_runtime.h>

#include "kernels/cuda/attention/decode_launch.h"
#include "kernels/cuda/attention/decode_merge.cuh"

namespace vt::kernels::cuda::attention {
namespace {

__global__ void MergeChunksKernel(PagedDecodeParams p) {
  __shared__ float weights[kMaxDecodeChunks];
  MergeHead(p, blockIdx.x, weights);
}

}  // namespace

cudaError_t LaunchMergeChunks(const PagedDecodeParams& p, cudaStream_t stream) {
  const unsigned heads = static_cast<unsigned>(p.batch) * p.num_q_heads;
  MergeChunksKernel<<<heads, p.head_dim, 0, stream>>>(p);
  return cudaGetLastError();
}

}  // namespace vt::kernels::cuda::attention
