// The GQA-fused arm: one CTA per (request, KV head, chunk) serves all G query heads that
// share the KV head, so every K/V byte is read once per KV head instead of once per query
// head. Scores and the weighted sum of V run on tensor cores (bf16 m16n8k16, fp32
// accumulation) with the G heads as the 16 MMA rows (padded) and keys as columns.
//
// Each of the 4 warps streams its own 16-key subtiles of K and V into shared memory with
// cp.async (STAGES deep, so STAGES - 1 subtiles are in flight while one is used), keeps an
// online softmax per head row, and the warps merge in a fixed order at the end. The page ids
// of the chunk are read into shared memory once, before the key loop.
//
// P enters the P.V MMA as two bf16 terms, hi = bf16(p) and lo = bf16(p - hi): rounding P to
// a single bf16 (as FlashAttention does) costs ~2^-9 relative per weight, visible next to the
// fp32 reference; the second MMA brings it to ~2^-17 for a few more tensor-core cycles in a
// kernel bound by memory.
#include <cuda_runtime.h>

#include "kernels/cuda/attention/decode_common.cuh"
#include "kernels/cuda/attention/decode_launch.h"
#include "kernels/cuda/attention/mma_bf16.cuh"

namespace vt::kernels::cuda::attention {
namespace {

constexpr int kWarps = 4;
constexpr int kKeys = 16;  // keys per warp subtile: one m16n8k16 K dimension for P.V
constexpr int kRows = 16;  // MMA rows: query heads of the group, padded

template <int D, int kStages>
struct GqaSmem {
  static constexpr int kPitch = D + 8;  // bf16 elements per row; the 16-byte pad avoids bank conflicts
  static constexpr int kTileElems = kKeys * kPitch;
  static constexpr int kWarpElems = kStages * 2 * kTileElems;  // K and V per stage
  static constexpr size_t kStagingBytes = size_t(kWarps) * kWarpElems * 2;
  static constexpr size_t kMergeBytes = size_t(kWarps) * kRows * D * 4;
  static constexpr size_t kBigBytes = kStagingBytes > kMergeBytes ? kStagingBytes : kMergeBytes;
  static constexpr size_t kQBytes = size_t(kRows) * kPitch * 2;
  static constexpr size_t kStatBytes = size_t(2) * kWarps * kRows * 4;
  static constexpr size_t kPageBytes = size_t(kMaxCachedPages) * 4;
  static constexpr size_t kTotal = kBigBytes + kQBytes + kStatBytes + kPageBytes;
};

template <int D, int kStages>
__global__ void __launch_bounds__(kWarps * 32) DecodeGqaKernel(PagedDecodeParams p) {
  using S = GqaSmem<D, kStages>;
  constexpr int kDimTiles = D / 8;     // n-tiles of the output
  constexpr int kKSteps = D / 16;      // k-steps of the score MMA
  constexpr int kChunksPerRow = D / 8;  // 16-byte copies per row
  constexpr int kCopiesPerLane = kKeys * kChunksPerRow / 32;

  extern __shared__ __align__(16) unsigned char smem[];
  uint16_t* staging = reinterpret_cast<uint16_t*>(smem);
  uint16_t* q_s = reinterpret_cast<uint16_t*>(smem + S::kBigBytes);
  float* m_s = reinterpret_cast<float*>(smem + S::kBigBytes + S::kQBytes);  // [kWarps][kRows]
  float* l_s = m_s + kWarps * kRows;
  int* pages = reinterpret_cast<int*>(l_s + kWarps * kRows);

  const int kv_head = blockIdx.x, b = blockIdx.y, c = blockIdx.z;
  const int group = p.num_q_heads / p.num_kv_heads;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int qrow = lane / 4, qcol = lane % 4;
  int begin, end;
  ChunkRange(p, p.context_lens[b], c, begin, end);
  if (begin >= end) {  // a chunk past this request's context: it weighs nothing in the merge
    for (int g = threadIdx.x; g < group; g += kWarps * 32) {
      p.partial_lse[(static_cast<int64_t>(b) * p.num_q_heads + kv_head * group + g) * p.num_chunks + c] = -INFINITY;
    }
    return;
  }

  // Q rows of this group into shared memory, padded rows zero.
  const uint16_t* q_base = p.q + (static_cast<int64_t>(b) * p.num_q_heads + kv_head * group) * D;
  for (int i = threadIdx.x; i < kRows * kChunksPerRow; i += kWarps * 32) {
    const int r = i / kChunksPerRow, col = (i % kChunksPerRow) * 8;
    uint4 v = make_uint4(0, 0, 0, 0);
    if (r < group) v = __ldg(reinterpret_cast<const uint4*>(q_base + r * D + col));
    *reinterpret_cast<uint4*>(q_s + r * S::kPitch + col) = v;
  }
  const PageWindow window = CachePages(p, b, begin, end, pages);  // also the barrier for q_s

  uint16_t* my_stages = staging + warp * S::kWarpElems;
  auto issue = [&](int key_base, int stage) {
    uint16_t* k_dst = my_stages + stage * 2 * S::kTileElems;
    uint16_t* v_dst = k_dst + S::kTileElems;
#pragma unroll
    for (int i = 0; i < kCopiesPerLane; ++i) {
      const int chunk = i * 32 + lane;
      const int r = chunk / kChunksPerRow, col = (chunk % kChunksPerRow) * 8;
      const int key = key_base + r;
      const bool valid = key < end;
      const int64_t off = valid ? PagedRowOffset(p, window, key, kv_head) + col : 0;
      CpAsync16(k_dst + r * S::kPitch + col, p.k_cache + off, valid);
      CpAsync16(v_dst + r * S::kPitch + col, p.v_cache + off, valid);
    }
    CpAsyncCommit();
  };

  const float qk_scale = p.scale * kLog2e;
  float o[kDimTiles][4];
#pragma unroll
  for (int t = 0; t < kDimTiles; ++t) o[t][0] = o[t][1] = o[t][2] = o[t][3] = 0.f;
  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f};

  constexpr int kCtaKeys = kWarps * kKeys;
  // Prologue: the first STAGES - 1 subtiles of this warp in flight. Every warp commits the same
  // number of groups per step (empty ones past the end), so wait_group counts stay uniform.
  int key_base = begin + warp * kKeys;
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    const int kb = key_base + s * kCtaKeys;
    if (kb < end) issue(kb, s);
    else CpAsyncCommit();
  }
  for (int j = 0; key_base < end; ++j, key_base += kCtaKeys) {
    const int ahead = key_base + (kStages - 1) * kCtaKeys;
    if (ahead < end) issue(ahead, (j + kStages - 1) % kStages);
    else CpAsyncCommit();
    CpAsyncWait<kStages - 1>();
    __syncwarp();
    const uint16_t* k_s = my_stages + (j % kStages) * 2 * S::kTileElems;
    const uint16_t* v_s = k_s + S::kTileElems;

    // Scores: two n-tiles of 8 keys, rows are query heads. Even and odd k-steps accumulate
    // into separate registers so two MMA chains run side by side, then add.
    float s[2][4] = {{0.f, 0.f, 0.f, 0.f}, {0.f, 0.f, 0.f, 0.f}};
    float s_odd[2][4] = {{0.f, 0.f, 0.f, 0.f}, {0.f, 0.f, 0.f, 0.f}};
#pragma unroll
    for (int ks = 0; ks < kKSteps; ++ks) {
      const int col = ks * 16 + 2 * qcol;
      const uint32_t a0 = *reinterpret_cast<const uint32_t*>(q_s + qrow * S::kPitch + col);
      const uint32_t a1 = *reinterpret_cast<const uint32_t*>(q_s + (qrow + 8) * S::kPitch + col);
      const uint32_t a2 = *reinterpret_cast<const uint32_t*>(q_s + qrow * S::kPitch + col + 8);
      const uint32_t a3 = *reinterpret_cast<const uint32_t*>(q_s + (qrow + 8) * S::kPitch + col + 8);
#pragma unroll
      for (int t = 0; t < 2; ++t) {
        const uint16_t* k_row = k_s + (t * 8 + qrow) * S::kPitch + col;
        MmaBf16(ks % 2 ? s_odd[t] : s[t], a0, a1, a2, a3, *reinterpret_cast<const uint32_t*>(k_row),
                *reinterpret_cast<const uint32_t*>(k_row + 8));
      }
    }
#pragma unroll
    for (int t = 0; t < 2; ++t) {
#pragma unroll
      for (int e = 0; e < 4; ++e) s[t][e] += s_odd[t][e];
    }

    // Online softmax per row: this lane holds rows qrow (s[t][0..1]) and qrow + 8 (s[t][2..3]).
    float row_max[2] = {-INFINITY, -INFINITY};
#pragma unroll
    for (int t = 0; t < 2; ++t) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int key = key_base + t * 8 + 2 * qcol + (e & 1);
        s[t][e] = key < end ? s[t][e] * qk_scale : -INFINITY;
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

    // O += P.V: P (rows x 16 keys) comes straight from the score accumulators, as hi + lo.
    uint32_t hi[4], lo[4];
    SplitBf16x2(s[0][0], s[0][1], hi[0], lo[0]);
    SplitBf16x2(s[0][2], s[0][3], hi[1], lo[1]);
    SplitBf16x2(s[1][0], s[1][1], hi[2], lo[2]);
    SplitBf16x2(s[1][2], s[1][3], hi[3], lo[3]);
#pragma unroll
    for (int t = 0; t < kDimTiles; ++t) {
      const int d = t * 8 + qrow;
      const uint16_t* v0 = v_s + (2 * qcol) * S::kPitch + d;
      const uint32_t b0 = uint32_t(v0[0]) | (uint32_t(v0[S::kPitch]) << 16);
      const uint32_t b1 = uint32_t(v0[8 * S::kPitch]) | (uint32_t(v0[9 * S::kPitch]) << 16);
      MmaBf16(o[t], hi[0], hi[1], hi[2], hi[3], b0, b1);
      MmaBf16(o[t], lo[0], lo[1], lo[2], lo[3], b0, b1);
    }
    __syncwarp();  // the stage just read is refilled by the next iteration's prefetch
  }

  // Merge the warps in a fixed order. The staging area is reused for the partial outputs.
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    l[r] += __shfl_xor_sync(0xffffffffu, l[r], 1);
    l[r] += __shfl_xor_sync(0xffffffffu, l[r], 2);
  }
  __syncthreads();
  float* acc_s = reinterpret_cast<float*>(smem);  // [kWarps][kRows][D]
  float* my_acc = acc_s + warp * kRows * D;
#pragma unroll
  for (int t = 0; t < kDimTiles; ++t) {
    const int d = t * 8 + 2 * qcol;
    my_acc[qrow * D + d] = o[t][0];
    my_acc[qrow * D + d + 1] = o[t][1];
    my_acc[(qrow + 8) * D + d] = o[t][2];
    my_acc[(qrow + 8) * D + d + 1] = o[t][3];
  }
  if (qcol == 0) {
    m_s[warp * kRows + qrow] = m[0];
    m_s[warp * kRows + qrow + 8] = m[1];
    l_s[warp * kRows + qrow] = l[0];
    l_s[warp * kRows + qrow + 8] = l[1];
  }
  __syncthreads();

  for (int idx = threadIdx.x; idx < group * D; idx += kWarps * 32) {
    const int g = idx / D, d = idx % D;
    float m_all = -INFINITY;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) m_all = fmaxf(m_all, m_s[w * kRows + g]);
    float l_all = 0.f, acc = 0.f;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
      const float scale = Rescale(m_s[w * kRows + g], m_all);
      l_all += l_s[w * kRows + g] * scale;
      acc += acc_s[(w * kRows + g) * D + d] * scale;
    }
    const float out = l_all > 0.f ? acc / l_all : 0.f;
    WriteHeadResult(p, b, kv_head * group + g, c, d, &out, 1, m_all, l_all, d == 0);
  }
}

template <int D, int kStages>
cudaError_t Launch(const PagedDecodeParams& p, cudaStream_t stream) {
  constexpr size_t kSmem = GqaSmem<D, kStages>::kTotal;
  static const cudaError_t attr =
      cudaFuncSetAttribute(DecodeGqaKernel<D, kStages>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kSmem));
  if (attr != cudaSuccess) return attr;
  const dim3 grid(p.num_kv_heads, p.batch, p.num_chunks);
  DecodeGqaKernel<D, kStages><<<grid, kWarps * 32, kSmem, stream>>>(p);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchDecodeGqa(const PagedDecodeParams& p, cudaStream_t stream) {
  // Three stages at head_dim 128 (2 CTAs per SM in 228 KB); two at 256 (one CTA per SM).
  return p.head_dim == 256 ? Launch<256, 2>(p, stream) : Launch<128, 3>(p, stream);
}

}  // namespace vt::kernels::cuda::attention
