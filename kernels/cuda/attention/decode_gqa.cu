// The GQA-fused arm: one CTA per (request, KV head, chunk) serves all G query heads that
// share the KV head, so every K/V byte is read once per KV head instead of once per query
// head. Scores and the weighted sum of V run on tensor cores (bf16 m16n8k16, fp32
// accumulation) with the G heads as the 16 MMA rows (padded) and keys as columns.
//
// A chunk of keys is split over the 4 warps in 16-key subtiles (subtile j goes to warp j % 4);
// each warp streams its subtiles of K and V into shared memory with cp.async (two stages: the
// next subtile is in flight while one is used) and keeps an online softmax per head row; at
// the chunk's end the warps merge in a fixed order. A CTA may serve several consecutive
// chunks of one request (chunks_per_cta): the copy pipeline then runs on across chunk ends,
// so the start-up latency of a CTA (page ids, first loads) is paid once per CTA, not per chunk.
// How many chunks a CTA serves changes no arithmetic: results are bitwise the same.
//
// P enters the P.V MMA as two bf16 terms, hi = bf16(p) and lo = bf16(p - hi): rounding P to
// a single bf16 (as FlashAttention does) costs ~2^-9 relative per weight, visible next to the
// fp32 reference; the second MMA brings it to ~2^-17 for a few more tensor-core cycles in a
// kernel bound by memory.
#include <cuda_runtime.h>

#include "kernels/cuda/attention/decode_common.cuh"
#include "kernels/cuda/attention/decode_launch.h"
#include "kernels/cuda/dependent_launch.h"
#include "kernels/cuda/attention/decode_plan.h"
#include "kernels/cuda/attention/gqa_tile.cuh"
#include "kernels/cuda/attention/mma_bf16.cuh"
#include "kernels/cuda/per_device.h"

namespace vt::kernels::cuda::attention {
namespace {

constexpr int kWarps = 4;
constexpr int kKeys = 16;  // keys per warp subtile: one m16n8k16 K dimension for P.V
constexpr int kRows = 16;  // MMA rows: query heads of the group, padded
constexpr int kStages = 2;
constexpr int kCtaKeys = kWarps * kKeys;

template <int D>
struct GqaSmem {
  static constexpr int kPitch = D + 8;  // bf16 elements per row; the 16-byte pad avoids bank conflicts
  static constexpr int kTileElems = kKeys * kPitch;
  static constexpr int kWarpElems = kStages * 2 * kTileElems;  // K and V per stage
  static constexpr size_t kStagingBytes = size_t(kWarps) * kWarpElems * 2;
  static constexpr size_t kQBytes = size_t(kRows) * kPitch * 2;
  static constexpr size_t kStatBytes = size_t(2) * kWarps * kRows * 4;
  static constexpr size_t kPageBytes = size_t(kMaxCachedPages) * 4;
  // The per-warp partial outputs of a chunk's merge: [kWarps][group][D] fp32.
  __host__ __device__ static constexpr size_t MergeBytes(int group) { return size_t(kWarps) * group * D * 4; }
  __host__ __device__ static constexpr size_t Total(int group) {
    return kStagingBytes + MergeBytes(group) + kQBytes + kStatBytes + kPageBytes;
  }
};

template <int D>
__global__ void __launch_bounds__(kWarps * 32) DecodeGqaKernel(PagedDecodeParams p) {
  AwaitPrecedingGrid();
  using S = GqaSmem<D>;
  constexpr int kDimTiles = D / 8;      // n-tiles of the output
  constexpr int kKSteps = D / 16;       // k-steps of the score MMA
  constexpr int kChunksPerRow = D / 8;  // 16-byte copies per row
  constexpr int kCopiesPerLane = kKeys * kChunksPerRow / 32;

  const int kv_head = blockIdx.x, b = blockIdx.y;
  const int group = p.num_q_heads / p.num_kv_heads;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int qrow = lane / 4, qcol = lane % 4;

  extern __shared__ __align__(16) unsigned char smem[];
  uint16_t* staging = reinterpret_cast<uint16_t*>(smem);
  float* merge_s = reinterpret_cast<float*>(smem + S::kStagingBytes);  // [kWarps][group][D]
  uint16_t* q_s = reinterpret_cast<uint16_t*>(smem + S::kStagingBytes + S::MergeBytes(group));
  float* m_s = reinterpret_cast<float*>(reinterpret_cast<unsigned char*>(q_s) + S::kQBytes);  // [kWarps][kRows]
  float* l_s = m_s + kWarps * kRows;
  int* pages = reinterpret_cast<int*>(l_s + kWarps * kRows);

  // This CTA's chunks [first, last); those at or past live_last lie beyond the context.
  const int context = p.context_lens[b];
  const int chunk = ChunkLength(p, context);
  const int first = blockIdx.z * p.chunks_per_cta;
  const int last = min(first + p.chunks_per_cta, p.num_chunks);
  const int live_last = min(last, LiveChunks(p, context));
  const int64_t head0 = static_cast<int64_t>(b) * p.num_q_heads + kv_head * group;
  for (int i = threadIdx.x; i < (last - max(first, live_last)) * group; i += kWarps * 32) {
    const int c = max(first, live_last) + i / group;  // an empty chunk weighs nothing in the merge
    p.partial_lse[(head0 + i % group) * p.num_chunks + c] = -INFINITY;
  }
  if (first >= live_last) return;
  const int begin = first * chunk, end = min(context, live_last * chunk);

  // Q rows of this group into shared memory, padded rows zero.
  const uint16_t* q_base = p.q + head0 * D;
  for (int i = threadIdx.x; i < kRows * kChunksPerRow; i += kWarps * 32) {
    const int r = i / kChunksPerRow, col = (i % kChunksPerRow) * 8;
    uint4 v = make_uint4(0, 0, 0, 0);
    if (r < group) v = __ldg(reinterpret_cast<const uint4*>(q_base + r * D + col));
    *reinterpret_cast<uint4*>(q_s + r * S::kPitch + col) = v;
  }
  const PageWindow window = CachePages(p, b, begin, end, pages);  // also the barrier for q_s

  // Iteration i of this warp: chunk first + i / iters_per_chunk, subtile i % iters_per_chunk.
  const int iters_per_chunk = (chunk + kCtaKeys - 1) / kCtaKeys;
  const int total_iters = (live_last - first) * iters_per_chunk;
  auto key_base_of = [&](int i) {
    return (first + i / iters_per_chunk) * chunk + ((i % iters_per_chunk) * kWarps + warp) * kKeys;
  };
  auto chunk_end_of = [&](int i) { return min(context, (first + i / iters_per_chunk + 1) * chunk); };

  uint16_t* my_stages = staging + warp * S::kWarpElems;
  auto issue = [&](int i) {
    uint16_t* k_dst = my_stages + (i % kStages) * 2 * S::kTileElems;
    uint16_t* v_dst = k_dst + S::kTileElems;
    const int key_base = key_base_of(i), chunk_end = chunk_end_of(i);
#pragma unroll
    for (int n = 0; n < kCopiesPerLane; ++n) {
      const int piece = n * 32 + lane;
      const int r = piece / kChunksPerRow, col = (piece % kChunksPerRow) * 8;
      const int key = key_base + r;
      const bool valid = key < chunk_end;
      const int64_t off = valid ? PagedRowOffset(p, window, key, kv_head) + col : 0;
      CpAsync16(k_dst + r * S::kPitch + col, p.k_cache + off, valid);
      CpAsync16(v_dst + r * S::kPitch + col, p.v_cache + off, valid);
    }
  };

  const float qk_scale = p.scale * kLog2e;
  ChunkState<kDimTiles> state;
  state.Reset();

  // Every warp runs the same iterations and commits one copy group per iteration (empty past
  // the end), so the wait_group counts and the chunk-end barriers line up across the CTA.
#pragma unroll
  for (int i = 0; i < kStages - 1; ++i) {
    if (i < total_iters) issue(i);
    CpAsyncCommit();
  }
  for (int i = 0; i < total_iters; ++i) {
    if (i + kStages - 1 < total_iters) issue(i + kStages - 1);
    CpAsyncCommit();
    CpAsyncWait<kStages - 1>();
    __syncwarp();
    const int key_base = key_base_of(i), chunk_end = chunk_end_of(i);
    if (key_base < chunk_end) {
      const uint16_t* k_s = my_stages + (i % kStages) * 2 * S::kTileElems;
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

      // Online softmax per row; O += P.V with P straight from the score accumulators, as hi + lo.
      uint32_t hi[4], lo[4];
      SoftmaxSubtile<kDimTiles>(s, s_odd, key_base, chunk_end, qk_scale, state, hi, lo);
#pragma unroll
      for (int t = 0; t < kDimTiles; ++t) {
        const int d = t * 8 + qrow;
        const uint16_t* v0 = v_s + (2 * qcol) * S::kPitch + d;
        const uint32_t b0 = uint32_t(v0[0]) | (uint32_t(v0[S::kPitch]) << 16);
        const uint32_t b1 = uint32_t(v0[8 * S::kPitch]) | (uint32_t(v0[9 * S::kPitch]) << 16);
        MmaBf16(state.o[t], hi[0], hi[1], hi[2], hi[3], b0, b1);
        MmaBf16(state.o[t], lo[0], lo[1], lo[2], lo[3], b0, b1);
      }
    }
    __syncwarp();  // the stage just read is refilled by the next iteration's copies

    if (i % iters_per_chunk != iters_per_chunk - 1) continue;

    // End of a chunk: merge the warps in a fixed order and write the chunk's result.
    MergeWarpsAndWrite<D, kWarps>(p, b, kv_head, first + i / iters_per_chunk, group, state, m_s, l_s,
                                  [&](int w) { return merge_s + w * group * D; });
    state.Reset();
  }
}

// CTAs of this kernel that fit on one SM at a group size (shared memory is the limit).
int ResidentCtasPerSm(size_t smem_bytes) {
  constexpr size_t kSmPerSm = 228 * 1024, kReservedPerCta = 1024;
  return static_cast<int>(kSmPerSm / (smem_bytes + kReservedPerCta));
}

template <int D>
cudaError_t Launch(PagedDecodeParams p, cudaStream_t stream) {
  const cudaError_t attr = AllowDynamicSharedMemory<DecodeGqaKernel<D>, GqaSmem<D>::Total(kRows)>();
  if (attr != cudaSuccess) return attr;
  static PerDevice<int> sms_by_device;
  const int sms = sms_by_device.Get([] {
    int device = 0, count = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device);
    return count > 0 ? count : 1;
  });
  const int group = p.num_q_heads / p.num_kv_heads;
  const size_t smem = GqaSmem<D>::Total(group);
  if (p.chunks_per_cta <= 0) {
    p.chunks_per_cta = ChunksPerCta(p.batch * p.num_kv_heads, p.num_chunks, sms * ResidentCtasPerSm(smem));
  }
  const int cta_groups = (p.num_chunks + p.chunks_per_cta - 1) / p.chunks_per_cta;
  const dim3 grid(p.num_kv_heads, p.batch, cta_groups);
  return LaunchDependent(DecodeGqaKernel<D>, grid, kWarps * 32, smem, stream, p);
}

}  // namespace

cudaError_t LaunchDecodeGqa(const PagedDecodeParams& p, cudaStream_t stream) {
  return p.head_dim == 256 ? Launch<256>(p, stream) : Launch<128>(p, stream);
}

}  // namespace vt::kernels::cuda::attention
