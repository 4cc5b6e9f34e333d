// The block arm: the generic decode kernel and the correctness baseline on the GPU.
// One CTA per (request, query head, chunk); keys are processed in tiles of kTile:
// warps score keys (lane-strided dot products), every thread then derives the tile's
// max and sum from shared memory in the same order, and each thread accumulates its
// own output dimensions.
#include <cuda_runtime.h>

#include "kernels/cuda/attention/decode_common.cuh"
#include "kernels/cuda/attention/decode_launch.h"

namespace vt::kernels::cuda::attention {
namespace {

constexpr int kThreads = 128;
constexpr int kTile = 64;
constexpr int kMaxDimsPerThread = 4;  // head_dim up to 512

__global__ void __launch_bounds__(kThreads) DecodeBlockKernel(PagedDecodeParams p) {
  extern __shared__ float smem[];
  float* q_s = smem;                  // [head_dim]
  float* logits = smem + p.head_dim;  // [kTile], scores in the log2 domain
  __shared__ int64_t row_offsets[kTile];
  __shared__ int pages[kMaxCachedPages];

  const int h = blockIdx.x, b = blockIdx.y, c = blockIdx.z;
  const int group = p.num_q_heads / p.num_kv_heads;
  const int kv_head = h / group;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int begin, end;
  ChunkRange(p, p.context_lens[b], c, begin, end);
  const PageWindow window = CachePages(p, b, begin, end, pages);

  const uint16_t* q = p.q + (static_cast<int64_t>(b) * p.num_q_heads + h) * p.head_dim;
  for (int d = threadIdx.x; d < p.head_dim; d += kThreads) q_s[d] = Bf16BitsToFloat(q[d]);
  __syncthreads();

  const float qk_scale = p.scale * kLog2e;
  float acc[kMaxDimsPerThread] = {0.f, 0.f, 0.f, 0.f};
  float m = -INFINITY, l = 0.f;

  for (int tile = begin; tile < end; tile += kTile) {
    const int n = min(kTile, end - tile);
    for (int j = warp; j < n; j += kThreads / 32) {
      const int64_t offset = PagedRowOffset(p, window, tile + j, kv_head);
      if (lane == 0) row_offsets[j] = offset;
      const uint16_t* k = p.k_cache + offset;
      float dot = 0.f;
      for (int d = lane; d < p.head_dim; d += 32) dot += q_s[d] * Bf16BitsToFloat(k[d]);
      dot = GroupSum(dot);
      if (lane == 0) logits[j] = dot * qk_scale;
    }
    __syncthreads();

    float tile_max = -INFINITY;
    for (int j = 0; j < n; ++j) tile_max = fmaxf(tile_max, logits[j]);
    const float m_new = fmaxf(m, tile_max);
    const float alpha = Rescale(m, m_new);
    float tile_sum = 0.f;
    for (int j = 0; j < n; ++j) tile_sum += exp2f(logits[j] - m_new);
    l = l * alpha + tile_sum;
    m = m_new;

#pragma unroll
    for (int i = 0; i < kMaxDimsPerThread; ++i) {
      const int d = threadIdx.x + i * kThreads;
      if (d >= p.head_dim) break;
      float a = acc[i] * alpha;
#pragma unroll 8
      for (int j = 0; j < n; ++j) a += exp2f(logits[j] - m_new) * Bf16BitsToFloat(p.v_cache[row_offsets[j] + d]);
      acc[i] = a;
    }
    __syncthreads();  // logits are rewritten by the next tile
  }

  const float inv_l = l > 0.f ? 1.f / l : 0.f;
#pragma unroll
  for (int i = 0; i < kMaxDimsPerThread; ++i) {
    const int d = threadIdx.x + i * kThreads;
    if (d >= p.head_dim) break;
    const float o = acc[i] * inv_l;
    WriteHeadResult(p, b, h, c, d, &o, 1, m, l, threadIdx.x == 0 && i == 0);
  }
}

}  // namespace

cudaError_t LaunchDecodeBlock(const PagedDecodeParams& p, cudaStream_t stream) {
  const dim3 grid(p.num_q_heads, p.batch, p.num_chunks);
  const size_t smem = (p.head_dim + kTile) * sizeof(float);
  DecodeBlockKernel<<<grid, kThreads, smem, stream>>>(p);
  return cudaGetLastError();
}

}  // namespace vt::kernels::cuda::attention
