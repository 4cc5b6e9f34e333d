// The warp-split arm. A warp (or half a warp, ROWS = 2) owns one key row at a time:
// each lane holds EPL consecutive elements of q, of the key and of its output slice,
// so a row is one 8- or 16-byte load per lane. Warps stride over the keys with their
// own online softmax, UNROLL rows in flight per lane, and merge at the end in a fixed
// order. Instantiations:
//   EPL 8, ROWS 1: head_dim 256 (the original arm)
//   EPL 4, ROWS 1: head_dim 128 (one 8-byte load per lane)
//   EPL 8, ROWS 2: head_dim 128 (two rows per warp, 16-byte loads)
// Each instantiation is its own function: adding the head_dim-128 ones leaves the
// head_dim-256 machine code untouched (tools/check_d256_sass.sh shows it).
#include <cuda_runtime.h>

#include "kernels/cuda/attention/decode_common.cuh"
#include "kernels/cuda/attention/decode_launch.h"

namespace vt::kernels::cuda::attention {
namespace {

constexpr int kWarps = 4;
constexpr int kUnroll = 4;

template <int EPL, int ROWS>
__global__ void __launch_bounds__(kWarps * 32) DecodeWarpKernel(PagedDecodeParams p) {
  constexpr int kLanesPerRow = 32 / ROWS;
  constexpr int kHeadDim = kLanesPerRow * EPL;
  constexpr int kStride = kWarps * ROWS;  // keys between a group's consecutive rows

  __shared__ float m_s[kWarps], l_s[kWarps];
  __shared__ float acc_s[kWarps][kHeadDim];
  __shared__ int pages[kMaxCachedPages];

  const int h = blockIdx.x, b = blockIdx.y, c = blockIdx.z;
  const int kv_head = h / (p.num_q_heads / p.num_kv_heads);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int row = lane / kLanesPerRow, sub = lane % kLanesPerRow;
  int begin, end;
  ChunkRange(p, p.context_lens[b], c, begin, end);
  const PageWindow window = CachePages(p, b, begin, end, pages);

  float q[EPL];
  LoadBf16Row<EPL>(p.q + (static_cast<int64_t>(b) * p.num_q_heads + h) * kHeadDim + sub * EPL, q);
  const float qk_scale = p.scale * kLog2e;

  float acc[EPL];
#pragma unroll
  for (int i = 0; i < EPL; ++i) acc[i] = 0.f;
  float m = -INFINITY, l = 0.f;

  // The loop bound is uniform across the warp (both half-warps of ROWS = 2 run the same trip
  // count) because the shuffles inside need every lane.
  for (int k0 = begin + warp * ROWS; k0 < end; k0 += kStride * kUnroll) {
    float kr[kUnroll][EPL], vr[kUnroll][EPL];
    bool valid[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int key = k0 + row + u * kStride;
      valid[u] = key < end;
      if (valid[u]) {
        const int64_t off = PagedRowOffset(p, window, key, kv_head) + sub * EPL;
        LoadBf16Row<EPL>(p.k_cache + off, kr[u]);
        LoadBf16Row<EPL>(p.v_cache + off, vr[u]);
      }
    }
    float s[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      float dot = 0.f;
#pragma unroll
      for (int i = 0; i < EPL; ++i) dot += valid[u] ? q[i] * kr[u][i] : 0.f;
      s[u] = dot;
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const float dot = GroupSum<kLanesPerRow>(s[u]);  // every lane shuffles, valid or not
      s[u] = valid[u] ? dot * qk_scale : -INFINITY;
    }

    float m_new = m;
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) m_new = fmaxf(m_new, s[u]);
    const float alpha = Rescale(m, m_new);
    l *= alpha;
#pragma unroll
    for (int i = 0; i < EPL; ++i) acc[i] *= alpha;
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      if (!valid[u]) continue;
      const float pu = exp2f(s[u] - m_new);
      l += pu;
#pragma unroll
      for (int i = 0; i < EPL; ++i) acc[i] += pu * vr[u][i];
    }
    m = m_new;
  }

  if constexpr (ROWS == 2) {
    // Fold the upper half-warp's row into the lower half; lanes 0..15 carry the result.
    const float m_o = __shfl_xor_sync(0xffffffffu, m, 16);
    const float l_o = __shfl_xor_sync(0xffffffffu, l, 16);
    const float m_new = fmaxf(m, m_o);
    const float a = Rescale(m, m_new), a_o = Rescale(m_o, m_new);
#pragma unroll
    for (int i = 0; i < EPL; ++i) {
      const float acc_o = __shfl_xor_sync(0xffffffffu, acc[i], 16);
      acc[i] = acc[i] * a + acc_o * a_o;
    }
    l = l * a + l_o * a_o;
    m = m_new;
  }

  if (row == 0) {
#pragma unroll
    for (int i = 0; i < EPL; ++i) acc_s[warp][sub * EPL + i] = acc[i];
    if (sub == 0) {
      m_s[warp] = m;
      l_s[warp] = l;
    }
  }
  __syncthreads();

  float m_all = -INFINITY;
#pragma unroll
  for (int w = 0; w < kWarps; ++w) m_all = fmaxf(m_all, m_s[w]);
  float l_all = 0.f;
#pragma unroll
  for (int w = 0; w < kWarps; ++w) l_all += l_s[w] * Rescale(m_s[w], m_all);
  const float inv_l = l_all > 0.f ? 1.f / l_all : 0.f;
  for (int d = threadIdx.x; d < kHeadDim; d += kWarps * 32) {
    float o = 0.f;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) o += acc_s[w][d] * Rescale(m_s[w], m_all);
    o *= inv_l;
    WriteHeadResult(p, b, h, c, d, &o, 1, m_all, l_all, d == 0);
  }
}

template <int EPL, int ROWS>
cudaError_t Launch(const PagedDecodeParams& p, cudaStream_t stream) {
  const dim3 grid(p.num_q_heads, p.batch, p.num_chunks);
  DecodeWarpKernel<EPL, ROWS><<<grid, kWarps * 32, 0, stream>>>(p);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchDecodeWarp(const PagedDecodeParams& p, cudaStream_t stream) {
  return p.head_dim == 256 ? Launch<8, 1>(p, stream) : Launch<4, 1>(p, stream);
}

cudaError_t LaunchDecodeWarpTwoRows(const PagedDecodeParams& p, cudaStream_t stream) {
  return Launch<8, 2>(p, stream);
}

}  // namespace vt::kernels::cuda::attention
