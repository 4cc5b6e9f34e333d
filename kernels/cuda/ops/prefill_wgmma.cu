#include <cuda_bf16.h>

#include "kernels/cuda/attention/decode_common.cuh"
#include "kernels/cuda/device_probe.h"
#include "kernels/cuda/ops/prefill_tc.h"
#include "kernels/cuda/ops/prefill_tc_common.cuh"
#include "kernels/cuda/ops/prefill_wgmma.h"
#include "kernels/cuda/ops/wgmma.cuh"
#include "kernels/cuda/per_device.h"

namespace vt::kernels::cuda {
namespace {

using attention::CpAsync16;
using attention::CpAsyncCommit;
using attention::CpAsyncWait;
using prefill::CtaShape;
using prefill::LaneRows;
using prefill::SplitOutput;

constexpr int kD = 128;
constexpr int kTileKeys = 64;
constexpr int kKeyTiles = kTileKeys / 8;  // S n8 tiles per K/V tile
constexpr int kDimTiles = kD / 8;         // O n8 tiles
constexpr int kKSteps = kD / 16;          // k16 steps of Q.K^T
// A K or V tile is two halves of the head dimension (kHalfDims each), each 64 key rows of 128 bytes
// in the 128-byte swizzle (16-byte chunk c of row r at chunk c ^ (r % 8)): the layout wgmma reads K
// in as a K-major B (S = Q.K^T, one half per four k16 steps) and V in as an N-major B (O += P.V, the
// halves kHalfDims elements of N apart).
constexpr int kHalfDims = 64;                      // one swizzle row: 128 bytes of bf16
constexpr int kHalfElems = kTileKeys * kHalfDims;
constexpr int kHalfBytes = kHalfElems * 2;
constexpr int kTileElems = 2 * kHalfElems;
constexpr int kBufferElems = 2 * kTileElems;  // K, then V
// Two buffers: 64 KiB (and the alignment slack), three CTAs per SM.
constexpr size_t kSmemBytes = size_t(2) * kBufferElems * sizeof(uint16_t) + kSwizzleAlign;
constexpr int kThreads = 32 * prefill::kWarpsPerCta;  // one warpgroup
static_assert(kThreads == 128, "the CTA's warps are one warpgroup");
// The copies: 16 threads a key row, so a thread's rows are 8 apart and its swizzled chunk is fixed.
static_assert(kThreads / 16 == 8, "each thread copies rows that share their swizzle");

// Grid and warps as PrefillTcKernel (prefill_tc.cu); the four warps are one warpgroup, each the
// warpgroup MMA's 16 rows of its (query head, token tile), so all four issue every MMA together and
// take every tile of the run (a warp past its own rows' keys gets -inf scores: nothing changes).
__global__ void __launch_bounds__(kThreads, 3)
    PrefillWgmmaKernel(PrefillAttentionParams p, CtaShape shape, SplitOutput split) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  uint16_t* smem = SwizzleAlignedShared(smem_raw);

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, q = lane / 4, c = lane % 4;
  const prefill::WarpTile tile = prefill::LocateWarp(p, shape, warp, q);
  const int split_index = blockIdx.z;
  LaneRows rows = prefill::RowsAt(p, tile);
  uint32_t qa[kKSteps][4];  // the queries: the A operand of Q.K^T, in registers for the whole call
  prefill::LoadQueryFragments<kD>(p, tile, c, qa);

  float o[kDimTiles][4];
#pragma unroll
  for (int n = 0; n < kDimTiles; ++n) o[n][0] = o[n][1] = o[n][2] = o[n][3] = 0.f;
  const float scale_log2 = p.scale * attention::kLog2e;

  // Tile loads: thread t copies 16-byte piece t % 16 of rows t / 16 + 8 j (j < 8) of K and of V, so
  // its swizzled column is the same for every row it copies.
  const int piece = threadIdx.x % 16, row0 = threadIdx.x / 16;
  const int load_dst = (piece / 8) * kHalfElems + row0 * kHalfDims + ((piece % 8) ^ row0) * 8;
  const int key_elems = p.num_kv_heads * kD, page_elems = p.block_size * key_elems;
  const int in_row = tile.kv_head * kD + piece * 8;

  for (int run_start = 0; run_start < tile.cta_rows;) {
    const prefill::Run run = prefill::FindRun(p, tile, split, run_start, split_index, kPrefillSplitKeys);
    const int k_end = run.k_end;
    const int32_t* table = p.block_tables + static_cast<int64_t>(run.seq) * p.max_blocks_per_seq;
    prefill::EnterRun(rows, tile, q, run_start, run.end);
    const int warp_unmasked = prefill::WarpUnmaskedUpTo(rows);

    // Keys kb .. kb + 63 into buffer `buffer` (keys past the range repeat its last key: masked).
    auto load_tile = [&](int buffer, int kb) {
      uint16_t* dst = smem + buffer * kBufferElems + load_dst;
#pragma unroll
      for (int j = 0; j < kTileKeys / 8; ++j) {
        const int key = min(kb + row0 + 8 * j, k_end - 1);
        const int64_t at = prefill::KeyOffset(p, shape, table, key, key_elems, page_elems, in_row);
        CpAsync16(dst + j * 8 * kHalfDims, p.k_cache + at, true);
        CpAsync16(dst + kTileElems + j * 8 * kHalfDims, p.v_cache + at, true);
      }
      CpAsyncCommit();
    };

    // One barrier a tile: past it every warp has waited for the previous tile's MMAs, so the next
    // tile's copies may refill that tile's buffer while this one is computed.
    if (run.k_begin < k_end) load_tile(0, run.k_begin);
    int buffer = 0;
    for (int kb = run.k_begin; kb < k_end; kb += kTileKeys, buffer ^= 1) {
      CpAsyncWait<0>();
      FenceProxyAsyncShared();  // this thread's copies, visible to the tensor cores' reads
      __syncthreads();
      if (kb + kTileKeys < k_end) load_tile(buffer ^ 1, kb + kTileKeys);
      const uint16_t* k_tile = smem + buffer * kBufferElems;
      const uint16_t* v_tile = k_tile + kTileElems;

      // S = Q . K^T: a half of the K tile covers four k16 steps, each 16 bf16 (32 bytes) into its rows.
      constexpr int kStepsPerHalf = kHalfDims / 16;
      float s[kKeyTiles][4];
      WgmmaFenceOperands(qa);
      WgmmaFence();
#pragma unroll
      for (int ks = 0; ks < kKSteps; ++ks) {
        const uint64_t k_desc = DescriptorAdvance(SwizzledTileDescriptor(k_tile + (ks / kStepsPerHalf) * kHalfElems),
                                                  32 * (ks % kStepsPerHalf));
        WgmmaBf16RegA64(s, qa[ks], k_desc, ks > 0);
      }
      WgmmaCommit();
      WgmmaWait<0>();
      WgmmaFenceOperands(s);

      uint32_t pa[kKeyTiles][2];
      float corr_lo, corr_hi;
      prefill::SoftmaxTile<kKeyTiles>(s, pa, rows,
                                      kb + kTileKeys > k_end || kb + kTileKeys - 1 > warp_unmasked, kb, k_end,
                                      c, scale_log2, corr_lo, corr_hi);
      prefill::RescaleRows<kDimTiles>(o, corr_lo, corr_hi);

      // O += P . V: k16 step kk is keys 16 kk .. 16 kk + 15, 16 rows of 128 bytes further.
      WgmmaFenceOperands(o);
      WgmmaFenceOperands(pa);
      WgmmaFence();
      const uint64_t v_desc = SwizzledNMajorDescriptor(v_tile, kHalfBytes);
#pragma unroll
      for (int kk = 0; kk < kTileKeys / 16; ++kk) {
        const uint32_t a[4] = {pa[2 * kk][0], pa[2 * kk][1], pa[2 * kk + 1][0], pa[2 * kk + 1][1]};
        WgmmaBf16RegA128TransB(o, a, DescriptorAdvance(v_desc, kk * 16 * kHalfDims * 2), true);
      }
      WgmmaCommit();
      WgmmaWait<0>();
      WgmmaFenceOperands(o);
      WgmmaFenceOperands(pa);
    }
    __syncthreads();  // the next run's first copies refill the buffers
    run_start = run.end;
  }
  prefill::StoreRows<kD>(p, split, o, rows, tile, split_index, c, scale_log2);
}

}  // namespace

// The kernel image is sm_90a.
bool PrefillWgmmaSupported(int head_dim) { return head_dim == kD && CurrentDeviceRunsSm90a(); }

cudaError_t LaunchPrefillWgmma(const PrefillAttentionParams& p, const SplitOutput& split,
                               cudaStream_t stream) {
  if (p.head_dim != kD) return cudaErrorInvalidValue;  // the device: the caller's PrefillWgmmaSupported
  const CtaShape shape = prefill::ShapeFor(p.num_q_heads / p.num_kv_heads, p.block_size);
  const cudaError_t err = AllowDynamicSharedMemory<PrefillWgmmaKernel, kSmemBytes>();
  if (err != cudaSuccess) return err;
  PrefillWgmmaKernel<<<prefill::GridFor(p, shape, split), kThreads, kSmemBytes, stream>>>(p, shape, split);
  return cudaGetLastError();
}

}  // namespace vt::kernels::cuda
