// One warp's 16-key subtile in the persistent decode arms (decode_persistent.cu, decode_solo.cu): its
// K and V rows copied with cp.async into swizzled shared memory, and its scores, softmax and P.V on
// the MMA tile of the group's query heads (gqa_tile.cuh). Both arms run exactly this per subtile, so
// they differ only in which warp takes which subtile and where the parts of a chunk are merged.
#pragma once

#include <cstdint>

#include "kernels/cuda/attention/decode_common.cuh"
#include "kernels/cuda/attention/gqa_tile.cuh"
#include "kernels/cuda/attention/mma_bf16.cuh"
#include "kernels/cuda/attention/subtile_lanes.h"
#include "kernels/cuda/attention/swizzled_tile.h"
#include "kernels/cuda/attention/work_schedule.h"
#include "kernels/cuda/dependent_launch.h"

namespace vt::kernels::cuda::attention {

// The page that holds keys from key_base (a multiple of 16) of request b: a subtile lies in one page.
// A subtile without keys (key_base >= key_end) addresses page 0 and reads nothing.
__device__ __forceinline__ int SubtilePage(const PagedDecodeParams& p, int b, int key_base, int key_end) {
  if (key_base >= key_end) return 0;
  const int32_t* table = p.block_tables + int64_t(b) * p.max_blocks_per_seq;
  return __ldg(table + (key_base >> (__ffs(p.block_size) - 1)));
}

// The warp's copies of keys [key_base, key_base + 16) of KV head h, in page `page` (SubtilePage;
// rows at or past key_end zero-filled), into the K and V tiles k_dst and v_dst, each lane's rows and
// source addresses as LaneRows (subtile_lanes.h) lays them out. Rows past key_end still address their
// page: mapped memory, of which cp.async reads nothing when its source size is 0.
template <int D>
__device__ __forceinline__ void CopySubtile(const PagedDecodeParams& p, int h, int page, int key_base, int key_end,
                                            uint16_t* k_dst, uint16_t* v_dst) {
  const LaneRows<D> lane(p, threadIdx.x % 32, page, key_base, h);
  const uint16_t* k_src = p.k_cache + lane.first;
  const uint16_t* v_src = p.v_cache + lane.first;
  const uint32_t k_base = SharedAddress(k_dst), v_base = SharedAddress(v_dst);
#pragma unroll
  for (int n = 0; n < LaneRows<D>::kPasses; ++n) {
    const bool valid = key_base + lane.Row(n) < key_end;
    // Each lane's row is read whole: the L2 fetches whole lines (CpAsync16's kWholeLine).
    CpAsync16<true>(k_base + lane.DstBytes(n), k_src, valid);
    CpAsync16<true>(v_base + lane.DstBytes(n), v_src, valid);
    k_src += lane.pass_stride;
    v_src += lane.pass_stride;
  }
}

// Whether a dependently launched decode arm lets the kernel after it launch as soon as it has
// waited: in a split call that is the merge kernel; in an unsplit one the output projection, and
// there llama3-8b at batch 4 ran 9% slower than split when it did, 1% faster when it did not
// (docs/BENCHMARKS.md, "Short contexts as one chunk, and the decode attention's successor launched
// when it ends"). Consistent with the six-warp o_proj filling 97% of one wave, so that this arm's
// resident CTAs push some of its tiles out (with five-warp CTAs the loss was 1.1%); qwen3-1.7b's 2.7%
// at batch 4 is not explained ("The unsplit attention letting o_proj launch early, taken apart").
// Unsplit calls let it launch early too where it has work to do before its own wait
// (p.successor_loads_early: its weights, skinny_gemm.h's kBeforeWait or an int4 form).
__device__ __forceinline__ bool DependentsLaunchEarly(const PagedDecodeParams& p) {
  return p.num_chunks > 1 || p.successor_loads_early;
}

// The start of a persistent arm launched dependently (dependent_launch.h) on a decode step
// (p.history_settled): the worker's first subtile, keys from key_base (`issue_first`), is copied before
// the wait on the kernel before unless it holds the request's last key (the one that kernel may write;
// a subtile past key_end holds none and only zero-fills), in a copy group of its own (the loops' waits count only the newest groups, so one older group changes
// nothing); then the wait, after which the kernel after this one may launch at once where
// DependentsLaunchEarly says so (a split call, or a successor with loads before its wait), else when
// this one ends. Returns whether the subtile was issued.
template <typename IssueFirst>
__device__ __forceinline__ bool IssueOlderKeysThenWait(const PagedDecodeParams& p, bool live, int key_base,
                                                       int key_end, int context, IssueFirst issue_first) {
  bool issued = false;
  if (live && (key_base >= key_end || min(key_base + kSubtileKeys, key_end) < context)) {
    issue_first();
    issued = true;
  }
  CpAsyncCommit();
  if (DependentsLaunchEarly(p)) {
    AwaitPrecedingGrid();
  } else {
    AwaitPrecedingGridOnly();
  }
  return issued;
}

// This lane's ldmatrix rows in a warp's tiles, computed once a kernel rather than once a subtile: in
// a K tile row (lane / 16) * 8 + lane % 8 and chunk (lane / 8) % 2 of a 16-dim step; in a V tile, and
// in a Q tile (whose A fragment takes the same rows), row lane % 16 and chunk lane / 16.
template <int D>
struct FragmentRows {
  SwizzledRow<D> k, v;

  __device__ __forceinline__ explicit FragmentRows(int lane)
      : k((lane >> 4) * 8 + (lane & 7), (lane >> 3) & 1), v(lane & 15, lane >> 4) {}
};

// Folds the subtile in k_s / v_s (keys from key_base; those at or past key_end weigh nothing) into
// the warp's state. q_at(ks) is this lane's ldmatrix address (SharedAddress) of the query tile for
// k-step ks; `rows` this lane's FragmentRows.
template <int D, typename QAt>
__device__ __forceinline__ void AccumulateSubtile(QAt q_at, const FragmentRows<D>& rows, const uint16_t* k_s,
                                                  const uint16_t* v_s, int key_base, int key_end, float qk_scale,
                                                  ChunkState<D / 8>& state) {
  constexpr int kDimTiles = D / 8;
  constexpr int kKSteps = D / 16;
  const uint32_t k_base = SharedAddress(k_s), v_base = SharedAddress(v_s);

  float s[2][4] = {{0.f, 0.f, 0.f, 0.f}, {0.f, 0.f, 0.f, 0.f}};
  float s_odd[2][4] = {{0.f, 0.f, 0.f, 0.f}, {0.f, 0.f, 0.f, 0.f}};
#pragma unroll
  for (int ks = 0; ks < kKSteps; ++ks) {
    uint32_t a[4], kb[4];
    LdMatrixX4(a[0], a[1], a[2], a[3], q_at(ks));
    LdMatrixX4(kb[0], kb[1], kb[2], kb[3], k_base + rows.k.Step(ks));
    MmaBf16(ks % 2 ? s_odd[0] : s[0], a[0], a[1], a[2], a[3], kb[0], kb[1]);
    MmaBf16(ks % 2 ? s_odd[1] : s[1], a[0], a[1], a[2], a[3], kb[2], kb[3]);
  }

  uint32_t hi[4], lo[4];
  SoftmaxSubtile<kDimTiles>(s, s_odd, key_base, key_end, qk_scale, state, hi, lo);
#pragma unroll
  for (int t = 0; t < kDimTiles; t += 2) {
    uint32_t vb[4];
    LdMatrixX4Trans(vb[0], vb[1], vb[2], vb[3], v_base + rows.v.Step(t / 2));
    MmaBf16(state.o[t], hi[0], hi[1], hi[2], hi[3], vb[0], vb[1]);
    MmaBf16(state.o[t], lo[0], lo[1], lo[2], lo[3], vb[0], vb[1]);
    MmaBf16(state.o[t + 1], hi[0], hi[1], hi[2], hi[3], vb[2], vb[3]);
    MmaBf16(state.o[t + 1], lo[0], lo[1], lo[2], lo[3], vb[2], vb[3]);
  }
}

}  // namespace vt::kernels::cuda::attention
