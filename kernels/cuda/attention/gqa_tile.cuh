// The arithmetic the two GQA arms share (decode_gqa.cu, decode_persistent.cu), so that they agree bit
// for bit: the online softmax of one warp's 16-key subtile, with the G query heads as the rows of one
// m16n8k16 tile (this lane holds rows q and q + 8, q = lane / 4), and the fixed-order merge of the
// warps at a chunk's end. The arms differ only in how K, V and Q reach these registers.
#pragma once

#include <cstdint>

#include "kernels/cuda/attention/decode_common.cuh"
#include "kernels/cuda/attention/mma_bf16.cuh"

namespace vt::kernels::cuda::attention {

// A warp's running state over one chunk: the output rows q and q + 8 of this lane (D / 8 n-tiles) and
// their running max and sum (log2 domain).
template <int kDimTiles>
struct ChunkState {
  float o[kDimTiles][4];
  float m[2], l[2];

  __device__ __forceinline__ void Reset() {
#pragma unroll
    for (int t = 0; t < kDimTiles; ++t) o[t][0] = o[t][1] = o[t][2] = o[t][3] = 0.f;
    m[0] = m[1] = -INFINITY;
    l[0] = l[1] = 0.f;
  }
};

// Turns a subtile's scores into weights: `s` and `s_odd` are the two halves of the score sums (even
// and odd k-steps), keys at or past `key_end` weigh nothing. Moves the state to the new max and
// returns P as bf16 hi + lo pairs (A fragments of the P.V MMA).
template <int kDimTiles>
__device__ __forceinline__ void SoftmaxSubtile(float (&s)[2][4], const float (&s_odd)[2][4], int key_base,
                                               int key_end, float qk_scale, ChunkState<kDimTiles>& state,
                                               uint32_t (&hi)[4], uint32_t (&lo)[4]) {
  const int qcol = threadIdx.x % 4;
  float(&m)[2] = state.m;
  float(&l)[2] = state.l;
  float(&o)[kDimTiles][4] = state.o;
  float row_max[2] = {-INFINITY, -INFINITY};
#pragma unroll
  for (int t = 0; t < 2; ++t) {
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int key = key_base + t * 8 + 2 * qcol + (e & 1);
      s[t][e] = key < key_end ? (s[t][e] + s_odd[t][e]) * qk_scale : -INFINITY;
      row_max[e / 2] = fmaxf(row_max[e / 2], s[t][e]);
    }
  }
  float alpha[2], m_new[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    row_max[r] = fmaxf(row_max[r], __shfl_xor_sync(0xffffffffu, row_max[r], 1));
    row_max[r] = fmaxf(row_max[r], __shfl_xor_sync(0xffffffffu, row_max[r], 2));
    m_new[r] = fmaxf(m[r], row_max[r]);
    alpha[r] = Rescale(m[r], m_new[r]);
    l[r] *= alpha[r];
    m[r] = m_new[r];
  }
#pragma unroll
  for (int t = 0; t < 2; ++t) {
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const float pe = s[t][e] == -INFINITY ? 0.f : exp2f(s[t][e] - m_new[e / 2]);
      s[t][e] = pe;
      l[e / 2] += pe;
    }
  }
#pragma unroll
  for (int t = 0; t < kDimTiles; ++t) {
    o[t][0] *= alpha[0];
    o[t][1] *= alpha[0];
    o[t][2] *= alpha[1];
    o[t][3] *= alpha[1];
  }
  SplitBf16x2(s[0][0], s[0][1], hi[0], lo[0]);
  SplitBf16x2(s[0][2], s[0][3], hi[1], lo[1]);
  SplitBf16x2(s[1][0], s[1][1], hi[2], lo[2]);
  SplitBf16x2(s[1][2], s[1][3], hi[3], lo[3]);
}

// One element of a chunk's result from kParts partial states of its query row, merged in a fixed
// order: m[w * 16] and l[w * 16] are part w's max and sum (log2 domain), acc_at(w) its unnormalised
// output element. Returns the normalised element and the chunk's max and sum. The one formula of the
// GQA arms' merge, so that the arms reducing a chunk's parts in different places agree bit for bit.
template <int kParts, typename AccAt>
__device__ __forceinline__ float MergedElement(const float* m, const float* l, AccAt acc_at, float& m_all,
                                               float& l_all) {
  constexpr int kRows = 16;
  m_all = -INFINITY;
#pragma unroll
  for (int w = 0; w < kParts; ++w) m_all = fmaxf(m_all, m[w * kRows]);
  l_all = 0.f;
  float acc = 0.f;
#pragma unroll
  for (int w = 0; w < kParts; ++w) {
    const float scale = Rescale(m[w * kRows], m_all);
    l_all += l[w * kRows] * scale;
    acc += acc_at(w) * scale;
  }
  return l_all > 0.f ? acc / l_all : 0.f;
}

// End of chunk `c` of request `b`, KV head `kv_head`: every warp puts its rows into `acc_of(warp)`
// ([group][D] fp32) and its max and sum into m_s / l_s ([kWarps][16]); the CTA then merges the warps in
// a fixed order and writes the chunk's result. Every thread of the CTA calls it; it ends with a barrier,
// so the buffers may be reused as soon as it returns.
template <int D, int kWarps, typename AccOf>
__device__ __forceinline__ void MergeWarpsAndWrite(const PagedDecodeParams& p, int b, int kv_head, int c, int group,
                                                   const ChunkState<D / 8>& state, float* m_s, float* l_s,
                                                   AccOf acc_of) {
  constexpr int kRows = 16;
  const float(&o)[D / 8][4] = state.o;
  const float(&m)[2] = state.m;
  const float(&l)[2] = state.l;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int qrow = lane / 4, qcol = lane % 4;
  float l_row[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    l_row[r] = l[r] + __shfl_xor_sync(0xffffffffu, l[r], 1);
    l_row[r] += __shfl_xor_sync(0xffffffffu, l_row[r], 2);
  }
  float* my_acc = acc_of(warp);
#pragma unroll
  for (int t = 0; t < D / 8; ++t) {
    const int d = t * 8 + 2 * qcol;
    if (qrow < group) *reinterpret_cast<float2*>(my_acc + qrow * D + d) = make_float2(o[t][0], o[t][1]);
    if (qrow + 8 < group) *reinterpret_cast<float2*>(my_acc + (qrow + 8) * D + d) = make_float2(o[t][2], o[t][3]);
  }
  if (qcol == 0) {
    m_s[warp * kRows + qrow] = m[0];
    m_s[warp * kRows + qrow + 8] = m[1];
    l_s[warp * kRows + qrow] = l_row[0];
    l_s[warp * kRows + qrow + 8] = l_row[1];
  }
  __syncthreads();
  for (int idx = threadIdx.x; idx < group * D; idx += kWarps * 32) {
    const int g = idx / D, d = idx % D;
    float m_all, l_all;
    const float out =
        MergedElement<kWarps>(m_s + g, l_s + g, [&](int w) { return acc_of(w)[g * D + d]; }, m_all, l_all);
    WriteHeadResult(p, b, kv_head * group + g, c, d, &out, 1, m_all, l_all, d == 0);
  }
  __syncthreads();
}

}  // namespace vt::kernels::cuda::attention
