// The persistent GQA arm: the GQA arm's arithmetic (decode_gqa.cu: one MMA tile serves the G query
// heads of a KV head, 16-key subtiles per warp, P as bf16 hi + lo) on a grid of one wave of CTAs that
// each stream a run of (request, KV head, chunk) work items.
//
// Why: split-KV chunks follow each request's own context (batch invariance), so at batch 8-64 most
// chunks are 128-512 keys, and a CTA per chunk pays its start-up latency (Q, page ids, the first
// loads) every few microseconds of streaming. Here every CTA computes the same schedule from the
// context lengths (a prefix sum in shared memory), takes the items whose first key falls in its
// equal share of all (request, KV head) keys, and keeps its cp.async pipeline running across item
// ends: the next item's Q and first K/V subtiles are in flight while the current item finishes.
// Fragments come from shared memory with ldmatrix (one instruction per four 8x8 tiles).
//
// Each item is reduced exactly as the GQA arm reduces a chunk (same subtiles per warp, same MMA
// order, same warp merge), so the two arms agree bit for bit and a request's result depends on
// its own context only, whichever CTA computes it.
#include <cuda_runtime.h>

#include <algorithm>

#include "kernels/cuda/attention/decode_common.cuh"
#include "kernels/cuda/attention/decode_launch.h"
#include "kernels/cuda/dependent_launch.h"
#include "kernels/cuda/attention/gqa_tile.cuh"
#include "kernels/cuda/attention/mma_bf16.cuh"
#include "kernels/cuda/attention/resident_grid.h"
#include "kernels/cuda/attention/warp_subtile.cuh"
#include "kernels/cuda/attention/work_items.cuh"

namespace vt::kernels::cuda::attention {
namespace {

constexpr int kWarps = kItemStreams;  // work_schedule.h
constexpr int kThreads = kWarps * 32;
constexpr int kKeys = kSubtileKeys;  // keys per warp subtile
constexpr int kRows = 16;  // MMA rows: the group's query heads, padded
constexpr int kCtaKeys = kWarps * kKeys;

// Two cp.async stages per warp: one subtile in flight while one is used. More stages cost
// occupancy, and this kernel needs warps more than bytes in flight: four stages at head_dim 128
// (one CTA per SM instead of two) ran 1.2-1.45x slower on an H200 (docs/BENCHMARKS.md).
//
// Shared memory is what limits CTAs per SM, so it holds no padding and no merge buffer: tiles are
// unpadded rows of D bf16 whose 16-byte chunks are XOR-swizzled by the row (Swizzle), and a warp's
// partial output at an item's end goes into the stage it has just consumed (group x D fp32 fits in
// a K + V subtile for every group <= 16). At head_dim 128 that is ~73 KB: three CTAs per SM.
//
// All of it is dynamic and starts at a 128-byte boundary (no static shared memory before it): the
// swizzle is laid out for 128-byte lines. Started 16 bytes off (where a static array of four ints put
// it) the kernel ran 8-10% slower on an H200's large calls, 32 bytes off ~2% slower than aligned
// (docs/BENCHMARKS.md, "The persist arm's shared memory, 16 bytes off"; a likely cause, not measured:
// each quarter-warp's 128 bytes of 16-byte copies then span two lines).
template <int D>
struct PersistentSmem {
  static constexpr int kStages = 2;
  static constexpr int kTileElems = kKeys * D;
  static constexpr int kWarpElems = kStages * 2 * kTileElems;
  static constexpr size_t kStagingBytes = size_t(kWarps) * kWarpElems * 2;
  static constexpr size_t kQTileElems = size_t(kRows) * D;
  // One Q tile per stage: the copies run up to kStages - 1 iterations, so as many items, ahead.
  static constexpr size_t kQBytes = kStages * kQTileElems * 2;
  static constexpr size_t kStatBytes = size_t(2) * kWarps * kRows * 4;
  static constexpr size_t kScanBytes = size_t(kWarps + 1) * 4;  // ScanContexts' warp sums and chunk count
  __host__ __device__ static constexpr size_t PrefixBytes(int batch) { return size_t(batch + 1) * 4; }
  __host__ __device__ static constexpr size_t Total(int batch) {
    return kStagingBytes + kQBytes + kStatBytes + kScanBytes + PrefixBytes(batch);
  }
};

// A position in this CTA's run of work items and, within the item, of its 64-key iterations.
struct WorkCursor : ItemWalk<CtaItemWeights> {
  int iter, iters;  // iteration within the item, iterations of the item
  int item;         // items this CTA has entered before this one (picks the Q tile)

  __device__ void StartItem() {
    iter = 0;
    iters = live ? (KeyEnd() - KeyBegin() + kCtaKeys - 1) / kCtaKeys : 0;
  }
  __device__ void Seek(int64_t start) {
    ItemWalk::Seek(start);
    StartItem();
  }
  __device__ void Step() {
    if (++iter < iters) return;
    ++item;
    NextChunk();
    StartItem();
  }
  // The first key of warp `warp`'s subtile in this iteration.
  __device__ int WarpKeyBase(int warp) const { return KeyBegin() + (iter * kWarps + warp) * kKeys; }
};

template <int D>
__global__ void __launch_bounds__(kThreads, D == 128 ? 3 : 1) DecodePersistentKernel(PagedDecodeParams p) {
  using S = PersistentSmem<D>;
  constexpr int kDimTiles = D / 8;
  constexpr int kChunksPerRow = D / 8;  // 16-byte copies per row

  const int group = p.num_q_heads / p.num_kv_heads;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;

  extern __shared__ __align__(128) unsigned char smem[];
  uint16_t* staging = reinterpret_cast<uint16_t*>(smem);
  uint16_t* q_tiles = reinterpret_cast<uint16_t*>(smem + S::kStagingBytes);
  float* m_s = reinterpret_cast<float*>(smem + S::kStagingBytes + S::kQBytes);  // [kWarps][kRows]
  float* l_s = m_s + kWarps * kRows;
  int* warp_sums = reinterpret_cast<int*>(l_s + kWarps * kRows);
  int* live_chunks = warp_sums + kWarps;
  int* prefix = live_chunks + 1;

  // A dependent launch (dependent_launch.h) may start this kernel while the one before it still
  // runs. When that kernel wrote neither the tables nor the older keys (p.history_settled, a decode
  // step), the schedule, the first page ids and each warp's first subtile of older keys are read
  // before waiting on it; otherwise nothing is.
  if (!p.history_settled) AwaitPrecedingGrid();
  // Padded Q rows stay zero for the whole kernel; the copies below only write rows < group.
  for (int i = threadIdx.x; i < int(S::kStages * S::kQTileElems / 8); i += kThreads) {
    reinterpret_cast<uint4*>(q_tiles)[i] = make_uint4(0, 0, 0, 0);
  }
  // Ends with a barrier: the zeroed Q tiles are visible too.
  ScanContexts<CtaItemWeights, kWarps>(p, warp_sums, prefix, live_chunks);

  // The first `workers` CTAs share the items; the rest only mark empty chunks. Which CTA runs an item
  // changes no arithmetic.
  const int64_t total = int64_t(prefix[p.batch]) * p.num_kv_heads;
  const int64_t workers = ItemWorkers(int64_t(*live_chunks) * p.num_kv_heads, gridDim.x);
  int64_t start = total, stop = total;
  if (blockIdx.x < workers) WorkerShare(total, blockIdx.x, workers, start, stop);
  WorkCursor produce{{prefix, p.batch, p.num_kv_heads, &p, stop}};
  produce.item = 0;
  produce.Seek(start);

  uint16_t* my_stages = staging + warp * S::kWarpElems;
  // The page of this warp's next subtile to copy, read one iteration ahead (step_produce) so
  // that the copies do not wait on it.
  int produce_page = produce.live ? SubtilePage(p, produce.b, produce.WarpKeyBase(warp), produce.KeyEnd()) : 0;
  auto step_produce = [&] {
    produce.Step();
    if (produce.live) produce_page = SubtilePage(p, produce.b, produce.WarpKeyBase(warp), produce.KeyEnd());
  };
  // This warp's share of the Q rows of the producer's item, into the item's Q tile.
  auto issue_q = [&] {
    const int64_t head0 = int64_t(produce.b) * p.num_q_heads + int64_t(produce.h) * group;
    const uint16_t* q_src = p.q + head0 * D;
    uint16_t* q_dst = q_tiles + (produce.item % S::kStages) * S::kQTileElems;
    for (int i = threadIdx.x; i < group * kChunksPerRow; i += kThreads) {
      const int r = i / kChunksPerRow, chunk = i % kChunksPerRow;
      CpAsync16(q_dst + Swizzle<D>(r, chunk), q_src + r * D + chunk * 8, true);
    }
  };
  // This warp's K and V subtile at the producer's position into stage `stage`.
  auto issue_kv = [&](int stage) {
    uint16_t* k_dst = my_stages + stage * 2 * S::kTileElems;
    CopySubtile<D>(p, produce.h, produce_page, produce.WarpKeyBase(warp), produce.KeyEnd(), k_dst,
                   k_dst + S::kTileElems);
  };

  const bool first_kv_issued =
      p.history_settled && IssueOlderKeysThenWait(p, produce.live, produce.WarpKeyBase(warp),
                                                  produce.KeyEnd(), produce.context, [&] { issue_kv(0); });

  MarkEmptyChunks<kThreads>(p);

  if (!produce.live) return;
  WorkCursor consume = produce;

  // Issues this warp's subtile at the producer's position into stage `stage`, and on an item's first
  // iteration also this warp's share of the item's Q rows.
  auto issue = [&](int stage) {
    if (produce.iter == 0) issue_q();
    issue_kv(stage);
  };

  const float qk_scale = p.scale * kLog2e;
  ChunkState<kDimTiles> state;
  state.Reset();

  const FragmentRows<D> rows(lane);

  // Every warp walks the same cursor and commits one copy group per iteration, so the
  // wait_group counts and the item barriers line up across the CTA.
#pragma unroll
  for (int s = 0; s < S::kStages - 1; ++s) {
    if (produce.live) {
      if (s == 0 && first_kv_issued) {
        issue_q();
      } else {
        issue(s);
      }
      step_produce();
    }
    CpAsyncCommit();
  }
  for (int i = 0; consume.live; ++i) {
    if (produce.live) {
      issue((i + S::kStages - 1) % S::kStages);
      step_produce();
    }
    CpAsyncCommit();
    CpAsyncWait<S::kStages - 1>();
    if (consume.iter == 0) __syncthreads();  // every warp's share of this item's Q has landed
    __syncwarp();

    const int key_base = consume.WarpKeyBase(warp);
    const int key_end = consume.KeyEnd();
    if (key_base < key_end) {
      const uint16_t* q_s = q_tiles + (consume.item % S::kStages) * S::kQTileElems;
      const uint16_t* k_s = my_stages + (i % S::kStages) * 2 * S::kTileElems;
      const uint16_t* v_s = k_s + S::kTileElems;

      const uint32_t q_base = SharedAddress(q_s);
      AccumulateSubtile<D>([&](int ks) { return q_base + rows.v.Step(ks); }, rows, k_s, v_s, key_base, key_end,
                           qk_scale, state);
    }
    __syncwarp();  // the stage just read is refilled by the next iteration's copies

    if (consume.iter == consume.iters - 1) {
      // End of an item: merge the warps in a fixed order and write the chunk's result. Each warp's
      // partial goes into the stage it has just consumed ([group][D] fp32 fits a K + V subtile).
      const int stage_offset = (i % S::kStages) * 2 * S::kTileElems;
      MergeWarpsAndWrite<D, kWarps>(p, consume.b, consume.h, consume.c, group, state, m_s, l_s, [&](int w) {
        return reinterpret_cast<float*>(staging + w * S::kWarpElems + stage_offset);
      });
      state.Reset();
    }
    consume.Step();
  }
  CpAsyncWait<0>();  // no copy outlives the CTA's shared memory
}

template <int D>
cudaError_t Launch(const PagedDecodeParams& p, cudaStream_t stream) {
  const size_t smem = PersistentSmem<D>::Total(p.batch);
  int resident = 0;
  const cudaError_t err = ResidentCtas<DecodePersistentKernel<D>>(kThreads, smem, resident);
  if (err != cudaSuccess) return err;
  // A batch whose schedule (4 bytes a row) no longer fits in shared memory beside the tiles runs the
  // gqa arm instead: the same bits, without the schedule.
  if (resident == 0) return LaunchDecodeGqa(p, stream);
  const int64_t items = int64_t(p.batch) * p.num_kv_heads * p.num_chunks;
  const int grid = static_cast<int>(std::min<int64_t>(items, resident));
  return LaunchDependent(DecodePersistentKernel<D>, grid, kThreads, smem, stream, p);
}

}  // namespace

cudaError_t LaunchDecodePersistent(const PagedDecodeParams& p, cudaStream_t stream) {
  return p.head_dim == 256 ? Launch<256>(p, stream) : Launch<128>(p, stream);
}

}  // namespace vt::kernels::cuda::attention
