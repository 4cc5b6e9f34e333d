// The solo arm: the persist arm's schedule and arithmetic (decode_persistent.cu) with a warp, not a
// CTA, per (request, KV head, chunk) work item.
//
// Why: a persist CTA's four warps share each item, so every item costs the CTA a barrier for its Q
// tile and a cross-warp merge between two more; at batch 8 with 8k keys an item is a 256-key chunk,
// four 64-key iterations between those barriers, and the arm runs at 1.18x cuDNN's time
// (docs/BENCHMARKS.md, "Against cuDNN kernel by kernel"). Here every warp walks its own share of the
// items and finishes each alone: nothing a warp does waits on another warp once the schedule is built.
//
// Same bits as the gqa and persist arms: a warp streams the four key streams that the persist arm's
// four warps take in a chunk (subtiles w, w + 4, w + 8, ... for w = 0 .. 3), one stream after
// another with the same per-subtile arithmetic (warp_subtile.cuh), keeps each stream's state in its
// shared memory, and merges the four in the same order with the same formula (MergedElement). So a
// request's result still follows from its own context only, and `auto` may pick between the arms.
//
// It needs more shared memory a warp than persist (a state a stream: [4][group][D] fp32) and runs
// head_dim 128 only, two CTAs an SM at groups up to 4.
#include <cuda_runtime.h>

#include <algorithm>

#include "kernels/cuda/attention/decode_common.cuh"
#include "kernels/cuda/attention/decode_launch.h"
#include "kernels/cuda/attention/gqa_tile.cuh"
#include "kernels/cuda/attention/mma_bf16.cuh"
#include "kernels/cuda/attention/resident_grid.h"
#include "kernels/cuda/attention/warp_subtile.cuh"
#include "kernels/cuda/attention/work_items.cuh"
#include "kernels/cuda/dependent_launch.h"

namespace vt::kernels::cuda::attention {
namespace {

constexpr int D = 128;
constexpr int kWarps = 4;
constexpr int kThreads = kWarps * 32;
constexpr int kKeys = kSubtileKeys;
constexpr int kRows = 16;    // MMA rows: the group's query heads, padded
constexpr int kStreams = kItemStreams;  // the persist arm's key streams, whose merge order is kept
constexpr int kStages = 2;   // cp.async stages a warp: one subtile in flight while one is used

// Shared memory: a block a warp, then the CTA's zero row and schedule. All of it dynamic and on
// 128-byte lines (the swizzle is laid out for them); every part of a warp's block is a multiple of
// 128 bytes long.
struct SoloSmem {
  static constexpr size_t kTileElems = size_t(kKeys) * D;
  static constexpr size_t kRingBytes = size_t(kStages) * 2 * kTileElems * 2;  // K and V a stage
  // One Q tile (the group's rows only) per stage: the copies run one subtile, so one item, ahead.
  __host__ __device__ static constexpr size_t QBytes(int group) { return size_t(kStages) * group * D * 2; }
  __host__ __device__ static constexpr size_t StreamAccBytes(int group) {
    return size_t(kStreams) * group * D * 4;
  }
  static constexpr size_t kStreamStatBytes = size_t(2) * kStreams * kRows * 4;  // max and sum
  __host__ __device__ static constexpr size_t WarpBytes(int group) {
    return kRingBytes + QBytes(group) + StreamAccBytes(group) + kStreamStatBytes;
  }
  static constexpr size_t kZeroRowBytes = size_t(D) * 2;  // the padded Q rows read it
  static constexpr size_t kScanBytes = size_t(kWarps) * 4;
  __host__ __device__ static constexpr size_t Total(int batch, int group) {
    return kWarps * WarpBytes(group) + kZeroRowBytes + kScanBytes + size_t(batch + 1) * 4;
  }
};

// A position in this warp's run of work items and, within the item, of its subtiles in the order of
// the persist arm's key streams (SubtileStreams, work_schedule.h).
struct SoloCursor : ItemWalk<WarpItemWeights> {
  SubtileStreams order;
  int item;  // items this warp has entered before this one (picks the Q tile)

  __device__ int KeyBase() const { return KeyBegin() + order.Subtile() * kKeys; }
  __device__ void StartItem() { order.Start(live ? (KeyEnd() - KeyBegin() + kKeys - 1) / kKeys : 0); }
  __device__ void Seek(int64_t start) {
    ItemWalk::Seek(start);
    StartItem();
  }
  __device__ void Step() {
    if (order.Advance()) return;
    ++item;
    NextChunk();
    StartItem();
  }
};

__global__ void __launch_bounds__(kThreads, 2) DecodeSoloKernel(PagedDecodeParams p) {
  using S = SoloSmem;
  constexpr int kChunksPerRow = D / 8;  // 16-byte copies per row
  const int group = p.num_q_heads / p.num_kv_heads;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;

  extern __shared__ __align__(128) unsigned char smem[];
  unsigned char* mine = smem + warp * S::WarpBytes(group);
  uint16_t* ring = reinterpret_cast<uint16_t*>(mine);
  uint16_t* q_tiles = reinterpret_cast<uint16_t*>(mine + S::kRingBytes);
  float* stream_acc = reinterpret_cast<float*>(mine + S::kRingBytes + S::QBytes(group));  // [kStreams][group][D]
  float* stream_m = stream_acc + kStreams * group * D;                                     // [kStreams][kRows]
  float* stream_l = stream_m + kStreams * kRows;
  unsigned char* tail = smem + kWarps * S::WarpBytes(group);
  uint16_t* zero_row = reinterpret_cast<uint16_t*>(tail);
  int* warp_sums = reinterpret_cast<int*>(tail + S::kZeroRowBytes);
  int* prefix = warp_sums + kWarps;

  // As in the persist arm: with p.history_settled the schedule, the first page id and the first
  // subtile of older keys are read before the dependent-launch wait; otherwise nothing is.
  if (!p.history_settled) AwaitPrecedingGrid();
  for (int i = threadIdx.x; i < D / 8; i += kThreads) reinterpret_cast<uint4*>(zero_row)[i] = make_uint4(0, 0, 0, 0);
  // Ends with a barrier: the zero row is visible too. No barrier follows; warps without work leave.
  ScanContexts<WarpItemWeights, kWarps>(p, warp_sums, prefix);

  int64_t start, stop;
  WorkerShare(int64_t(prefix[p.batch]) * p.num_kv_heads, int64_t(blockIdx.x) * kWarps + warp,
              int64_t(gridDim.x) * kWarps, start, stop);
  SoloCursor produce{{prefix, p.batch, p.num_kv_heads, &p, stop}};
  produce.item = 0;
  produce.Seek(start);

  // The group's Q rows of `at`'s item into its Q tile.
  auto issue_q = [&](const SoloCursor& at) {
    const uint16_t* q_src = p.q + (int64_t(at.b) * p.num_q_heads + int64_t(at.h) * group) * D;
    uint16_t* q_dst = q_tiles + (at.item % kStages) * group * D;
    for (int i = lane; i < group * kChunksPerRow; i += 32) {
      const int r = i / kChunksPerRow, chunk = i % kChunksPerRow;
      CpAsync16(q_dst + Swizzle<D>(r, chunk), q_src + r * D + chunk * 8, true);
    }
  };
  auto issue_kv = [&](const SoloCursor& at, int stage) {
    uint16_t* k_dst = ring + stage * 2 * S::kTileElems;
    CopySubtile<D>(p, at.h, SubtilePage(p, at.b, at.KeyBase(), at.KeyEnd()), at.KeyBase(), at.KeyEnd(), k_dst,
                   k_dst + S::kTileElems);
  };
  auto issue = [&](const SoloCursor& at, int stage) {
    if (at.order.stream == 0 && at.order.sub == 0) issue_q(at);
    issue_kv(at, stage);
  };

  const bool first_kv_issued =
      p.history_settled && IssueOlderKeysThenWait(p, produce.live, produce.KeyBase(), produce.KeyEnd(),
                                                  produce.context, [&] { issue_kv(produce, 0); });
  MarkEmptyChunks<kThreads>(p);
  if (!produce.live) return;
  SoloCursor consume = produce;

  if (first_kv_issued) {
    issue_q(produce);
  } else {
    issue(produce, 0);
  }
  produce.Step();
  CpAsyncCommit();

  const float qk_scale = p.scale * kLog2e;
  ChunkState<D / 8> state;
  state.Reset();
  // This lane's ldmatrix row of the Q tile and its chunk within a 16-dim step; rows past the group
  // read the zero row, as the persist arm's zeroed padding rows.
  const int q_row = lane & 15, q_half = lane >> 4;
  const FragmentRows<D> rows(lane);
  const uint32_t zero_base = SharedAddress(zero_row);
  const int qrow = lane / 4, qcol = lane % 4;  // the C fragment rows this lane holds: qrow, qrow + 8

  // One copy group a subtile, so a wait for all but the newest group leaves the current one landed.
  for (int i = 0; consume.live; ++i) {
    if (produce.live) {
      issue(produce, (i + 1) % kStages);
      produce.Step();
    }
    CpAsyncCommit();
    CpAsyncWait<kStages - 1>();
    __syncwarp();

    const uint16_t* q_s = q_tiles + (consume.item % kStages) * group * D;
    const uint16_t* k_s = ring + (i % kStages) * 2 * S::kTileElems;
    const uint32_t q_base = SharedAddress(q_s);
    AccumulateSubtile<D>(
        [&](int ks) { return q_row < group ? q_base + rows.v.Step(ks) : zero_base + (2 * ks + q_half) * 16; }, rows,
        k_s, k_s + S::kTileElems, consume.KeyBase(), consume.KeyEnd(), qk_scale, state);
    __syncwarp();  // the stage just read is refilled by the next iteration's copies

    if (consume.order.LastOfStream()) {
      // The stream's state as the persist arm's warp leaves it for MergeWarpsAndWrite: its rows of
      // the group, its max, and its sum over the quad.
      const int w = consume.order.stream;
      float* acc = stream_acc + w * group * D;
#pragma unroll
      for (int t = 0; t < D / 8; ++t) {
        const int d = t * 8 + 2 * qcol;
        if (qrow < group) *reinterpret_cast<float2*>(acc + qrow * D + d) = make_float2(state.o[t][0], state.o[t][1]);
        if (qrow + 8 < group) {
          *reinterpret_cast<float2*>(acc + (qrow + 8) * D + d) = make_float2(state.o[t][2], state.o[t][3]);
        }
      }
      float l_row[2];
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        l_row[r] = state.l[r] + __shfl_xor_sync(0xffffffffu, state.l[r], 1);
        l_row[r] += __shfl_xor_sync(0xffffffffu, l_row[r], 2);
      }
      if (qcol == 0) {
        stream_m[w * kRows + qrow] = state.m[0];
        stream_m[w * kRows + qrow + 8] = state.m[1];
        stream_l[w * kRows + qrow] = l_row[0];
        stream_l[w * kRows + qrow + 8] = l_row[1];
      }
      state.Reset();

      if (consume.order.LastOfItem()) {
        // Streams the item's keys did not reach are a persist warp with no keys: max -inf, sum 0,
        // output 0.
        const int live_streams = consume.order.LiveStreams();
        for (int s = live_streams; s < kStreams; ++s) {
          if (lane < kRows) {
            stream_m[s * kRows + lane] = -INFINITY;
            stream_l[s * kRows + lane] = 0.f;
          }
        }
        __syncwarp();
        for (int idx = lane; idx < group * D; idx += 32) {
          const int g = idx / D, d = idx % D;
          float m_all, l_all;
          const float out = MergedElement<kStreams>(
              stream_m + g, stream_l + g,
              [&](int s) { return s < live_streams ? stream_acc[(s * group + g) * D + d] : 0.f; }, m_all, l_all);
          WriteHeadResult(p, consume.b, consume.h * group + g, consume.c, d, &out, 1, m_all, l_all, d == 0);
        }
        __syncwarp();  // the stream states are rewritten by the next item
      }
    }
    consume.Step();
  }
  CpAsyncWait<0>();  // no copy outlives the CTA's shared memory
}

}  // namespace

bool SoloRunsItself(int batch, int group) {
  int resident = 0;
  return ResidentCtas<DecodeSoloKernel>(kThreads, SoloSmem::Total(batch, group), resident) == cudaSuccess &&
         resident > 0;
}

cudaError_t LaunchDecodeSolo(const PagedDecodeParams& p, cudaStream_t stream) {
  if (p.head_dim != D) return cudaErrorInvalidValue;  // CheckArmSupports refuses the shape first
  const int group = p.num_q_heads / p.num_kv_heads;
  const size_t smem = SoloSmem::Total(p.batch, group);
  int resident = 0;
  const cudaError_t err = ResidentCtas<DecodeSoloKernel>(kThreads, smem, resident);
  if (err != cudaSuccess) return err;
  // A shape whose warps' blocks and schedule do not fit one CTA runs the gqa arm: the same bits.
  if (resident == 0) return LaunchDecodeGqa(p, stream);
  const int64_t items = int64_t(p.batch) * p.num_kv_heads * p.num_chunks;
  const int grid = static_cast<int>(std::min<int64_t>((items + kWarps - 1) / kWarps, resident));
  return LaunchDependent(DecodeSoloKernel, grid, kThreads, smem, stream, p);
}

}  // namespace vt::kernels::cuda::attention
