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
#include "kernels/cuda/per_device.h"

namespace vt::kernels::cuda::attention {
namespace {

constexpr int kWarps = 4;
constexpr int kThreads = kWarps * 32;
constexpr int kKeys = 16;  // keys per warp subtile
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
  static constexpr size_t kScanBytes = size_t(kWarps) * 4;  // ScanContexts' warp sums
  __host__ __device__ static constexpr size_t PrefixBytes(int batch) { return size_t(batch + 1) * 4; }
  __host__ __device__ static constexpr size_t Total(int batch) {
    return kStagingBytes + kQBytes + kStatBytes + kScanBytes + PrefixBytes(batch);
  }
};

// Element offset of 16-byte chunk `chunk` of row `row` in a tile of D-element rows. The eight rows
// an ldmatrix phase reads sit at row stride D * 2 bytes (a multiple of 128), so without the XOR
// they would all hit the same banks.
template <int D>
__device__ __forceinline__ int Swizzle(int row, int chunk) {
  return row * D + ((chunk ^ (row & 7)) << 3);
}

// The schedule weighs work in units of one 16-key subtile. An item costs its 64-key iterations
// (a short item streams a whole one) plus a fixed part for its Q tile, its start barrier and its
// warp merge and write, put at two subtiles from the measured cost of 128-key chunks (73% of the
// copy ceiling against 88% with 512-key ones, docs/BENCHMARKS.md). Weighing keys alone sent every
// one-key row of a padded CUDA-graph batch to one CTA, which then ran hundreds of items while the
// rest of the grid waited (batch 256 decode steps 5x slower than the gqa arm).
constexpr int kUnitKeys = 16;
constexpr int kItemCostUnits = 2;

__device__ __forceinline__ int ItemUnits(int keys) {
  return (keys + kCtaKeys - 1) / kCtaKeys * (kCtaKeys / kUnitKeys) + kItemCostUnits;
}

// A request's weight for one KV head: its chunks' units, every chunk but the last a full one.
// Chunks are at least 16 keys, so that is at most one unit a key from 11 keys on and 6 units
// below: the 32-bit schedule holds every batch CheckArmSupports admits (decode_plan.cpp).
__device__ __forceinline__ int RequestUnits(const PagedDecodeParams& p, int context) {
  const int chunk = ChunkLength(p, context), chunks = LiveChunks(p, context);
  return (chunks - 1) * ItemUnits(chunk) + ItemUnits(context - (chunks - 1) * chunk);
}

// Weight prefix over the batch: prefix[b] = units of requests 0 .. b-1 (one KV head each);
// warp_sums is kWarps ints of shared memory.
__device__ void ScanContexts(const PagedDecodeParams& p, int* warp_sums, int* prefix) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int carry = 0;
  if (threadIdx.x == 0) prefix[0] = 0;
  for (int base = 0; base < p.batch; base += kThreads) {
    const int i = base + threadIdx.x;
    int v = i < p.batch ? RequestUnits(p, p.context_lens[i]) : 0;
#pragma unroll
    for (int offset = 1; offset < 32; offset *= 2) {
      const int up = __shfl_up_sync(0xffffffffu, v, offset);
      if (lane >= offset) v += up;
    }
    if (lane == 31) warp_sums[warp] = v;
    __syncthreads();
    int before = carry, round = 0;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
      if (w < warp) before += warp_sums[w];
      round += warp_sums[w];
    }
    if (i < p.batch) prefix[i + 1] = before + v;
    carry += round;
    __syncthreads();  // warp_sums is rewritten by the next round
  }
}

// A position in this CTA's run of work items and, within the item, of its 64-key iterations.
// Items are ordered request-major, then KV head, then chunk; an item's position is the weight of
// the items before it in that order, counting every KV head's.
struct WorkCursor {
  const int* prefix;
  int batch, kv_heads;
  const PagedDecodeParams* p;
  int64_t stop;  // items at or past this position belong to the next CTA
  int b, h, c;
  int context, chunk, chunks;
  int units, chunk_units;  // one KV head's weight, and a full chunk's
  int iter, iters;  // iteration within the item, iterations of the item
  int item;         // items this CTA has entered before this one (picks the Q tile)
  bool live;

  __device__ void EnterRequest() {
    context = p->context_lens[b];
    chunk = ChunkLength(*p, context);
    chunks = LiveChunks(*p, context);
    units = prefix[b + 1] - prefix[b];
    chunk_units = ItemUnits(chunk);
  }
  __device__ int64_t Position() const {
    return int64_t(prefix[b]) * kv_heads + int64_t(h) * units + int64_t(c) * chunk_units;
  }
  __device__ void EnterItem() {
    live = b < batch && Position() < stop;
    iter = 0;
    iters = live ? (KeyEnd() - c * chunk + kCtaKeys - 1) / kCtaKeys : 0;
  }
  __device__ int KeyEnd() const { return min(context, (c + 1) * chunk); }
  // The first item at or after position `start`.
  __device__ void Seek(int64_t start) {
    if (start >= int64_t(prefix[batch]) * kv_heads) {
      b = batch;
      h = c = iter = iters = 0;
      live = false;
      return;
    }
    int lo = 0, hi = batch;  // the last request whose items begin at or before `start`
    while (hi - lo > 1) {
      const int mid = (lo + hi) / 2;
      if (int64_t(prefix[mid]) * kv_heads <= start) lo = mid; else hi = mid;
    }
    b = lo;
    EnterRequest();
    const int64_t offset = start - int64_t(prefix[b]) * kv_heads;
    h = static_cast<int>(offset / units);
    const int within = static_cast<int>(offset - int64_t(h) * units);
    c = (within + chunk_units - 1) / chunk_units;
    if (c < chunks) {
      EnterItem();
    } else {  // `start` lies inside this KV head's last chunk: the next item is the first at or after it
      c = chunks - 1;
      NextChunk();
    }
  }
  __device__ void NextChunk() {
    if (++c >= chunks) {  // >=: a request of no keys has no chunks
      c = 0;
      if (++h == kv_heads) {
        h = 0;
        if (++b < batch) EnterRequest();
      }
    }
    EnterItem();
  }
  __device__ void Step() {
    if (++iter < iters) return;
    ++item;
    NextChunk();
  }
};

template <int D>
__global__ void __launch_bounds__(kThreads, D == 128 ? 3 : 1) DecodePersistentKernel(PagedDecodeParams p) {
  using S = PersistentSmem<D>;
  constexpr int kDimTiles = D / 8;
  constexpr int kKSteps = D / 16;
  constexpr int kChunksPerRow = D / 8;  // 16-byte copies per row
  constexpr int kCopiesPerLane = kKeys * kChunksPerRow / 32;

  const int group = p.num_q_heads / p.num_kv_heads;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;

  extern __shared__ __align__(128) unsigned char smem[];
  uint16_t* staging = reinterpret_cast<uint16_t*>(smem);
  uint16_t* q_tiles = reinterpret_cast<uint16_t*>(smem + S::kStagingBytes);
  float* m_s = reinterpret_cast<float*>(smem + S::kStagingBytes + S::kQBytes);  // [kWarps][kRows]
  float* l_s = m_s + kWarps * kRows;
  int* warp_sums = reinterpret_cast<int*>(l_s + kWarps * kRows);
  int* prefix = warp_sums + kWarps;

  // A dependent launch (dependent_launch.h) may start this kernel while the one before it still
  // runs. When that kernel wrote neither the tables nor the older keys (p.history_settled, a decode
  // step), the schedule, the first page ids and each warp's first subtile of older keys are read
  // before waiting on it; otherwise nothing is.
  if (!p.history_settled) AwaitPrecedingGrid();
  // Padded Q rows stay zero for the whole kernel; the copies below only write rows < group.
  for (int i = threadIdx.x; i < int(S::kStages * S::kQTileElems / 8); i += kThreads) {
    reinterpret_cast<uint4*>(q_tiles)[i] = make_uint4(0, 0, 0, 0);
  }
  ScanContexts(p, warp_sums, prefix);  // ends with a barrier: the zeroed Q tiles are visible too

  const int64_t total = int64_t(prefix[p.batch]) * p.num_kv_heads;
  const int64_t ctas = gridDim.x;
  const int64_t start = (int64_t(blockIdx.x) * total + ctas - 1) / ctas;
  const int64_t stop = (int64_t(blockIdx.x + 1) * total + ctas - 1) / ctas;
  WorkCursor produce{prefix, p.batch, p.num_kv_heads, &p, stop};
  produce.item = 0;
  produce.Seek(start);

  uint16_t* my_stages = staging + warp * S::kWarpElems;
  // This warp's share of the Q rows of `at`'s item, into the item's Q tile.
  auto issue_q = [&](const WorkCursor& at) {
    const int64_t head0 = int64_t(at.b) * p.num_q_heads + int64_t(at.h) * group;
    const uint16_t* q_src = p.q + head0 * D;
    uint16_t* q_dst = q_tiles + (at.item % S::kStages) * S::kQTileElems;
    for (int i = threadIdx.x; i < group * kChunksPerRow; i += kThreads) {
      const int r = i / kChunksPerRow, chunk = i % kChunksPerRow;
      CpAsync16(q_dst + Swizzle<D>(r, chunk), q_src + r * D + chunk * 8, true);
    }
  };
  // This warp's K and V subtile of `at` into stage `stage`.
  auto issue_kv = [&](const WorkCursor& at, int stage) {
    uint16_t* k_dst = my_stages + stage * 2 * S::kTileElems;
    uint16_t* v_dst = k_dst + S::kTileElems;
    const int key_base = at.c * at.chunk + (at.iter * kWarps + warp) * kKeys;
    const int key_end = at.KeyEnd();
    const int32_t* table = p.block_tables + int64_t(at.b) * p.max_blocks_per_seq;
    const int shift = __ffs(p.block_size) - 1;
    // A 16-key subtile lies in one page: chunks and subtiles start at multiples of 16.
    const int page = key_base < key_end ? __ldg(table + (key_base >> shift)) : 0;
    const int64_t page_base =
        ((int64_t(page) * p.block_size + (key_base & (p.block_size - 1))) * p.num_kv_heads + at.h) * D;
#pragma unroll
    for (int n = 0; n < kCopiesPerLane; ++n) {
      const int piece = n * 32 + lane;
      const int r = piece / kChunksPerRow, chunk = piece % kChunksPerRow;
      const bool valid = key_base + r < key_end;
      const int64_t off = valid ? page_base + int64_t(r) * p.num_kv_heads * D + chunk * 8 : 0;
      // Each lane's row is read whole: the L2 fetches whole lines (CpAsync16's kWholeLine).
      CpAsync16<true>(k_dst + Swizzle<D>(r, chunk), p.k_cache + off, valid);
      CpAsync16<true>(v_dst + Swizzle<D>(r, chunk), p.v_cache + off, valid);
    }
  };

  // The first subtile goes out before the wait unless it holds the request's last key (the one the
  // kernel before may have written), in a copy group of its own: the loop's wait counts only the
  // newest groups, so an older one more changes nothing.
  bool first_kv_issued = false;
  if (p.history_settled) {
    if (produce.live) {
      const int key_base = produce.c * produce.chunk + warp * kKeys;
      const int key_end = produce.KeyEnd();
      if (key_base >= key_end || min(key_base + kKeys, key_end) < produce.context) {
        issue_kv(produce, 0);
        first_kv_issued = true;
      }
    }
    CpAsyncCommit();
    AwaitPrecedingGrid();
  }

  // The merge reads every chunk slot of the grid: the ones past a request's context weigh nothing
  // (lse = -inf). Requests are dealt out over the CTAs for these writes.
  if (p.num_chunks > 1) {
    for (int b = blockIdx.x; b < p.batch; b += gridDim.x) {
      const int live = LiveChunks(p, p.context_lens[b]);
      const int dead = p.num_chunks - live;
      for (int i = threadIdx.x; i < dead * p.num_q_heads; i += kThreads) {
        p.partial_lse[(int64_t(b) * p.num_q_heads + i / dead) * p.num_chunks + live + i % dead] = -INFINITY;
      }
    }
  }

  if (!produce.live) return;
  WorkCursor consume = produce;

  // Issues `at`'s subtile of this warp into stage `stage`, and on an item's first iteration also
  // this warp's share of the item's Q rows.
  auto issue = [&](const WorkCursor& at, int stage) {
    if (at.iter == 0) issue_q(at);
    issue_kv(at, stage);
  };

  const float qk_scale = p.scale * kLog2e;
  ChunkState<kDimTiles> state;
  state.Reset();

  // The rows this lane addresses for ldmatrix in a Q tile and a K or V subtile, and the chunk
  // offset within the 16-dim step (Q, K) or pair of 8-dim tiles (V) it reads.
  const int q_row = lane & 15, q_half = lane >> 4;
  const int k_row = (lane >> 4) * 8 + (lane & 7), k_half = (lane >> 3) & 1;
  const int v_row = (lane & 7) + ((lane >> 3) & 1) * 8, v_half = lane >> 4;

  // Every warp walks the same cursor and commits one copy group per iteration, so the
  // wait_group counts and the item barriers line up across the CTA.
#pragma unroll
  for (int s = 0; s < S::kStages - 1; ++s) {
    if (produce.live) {
      if (s == 0 && first_kv_issued) {
        issue_q(produce);
      } else {
        issue(produce, s);
      }
      produce.Step();
    }
    CpAsyncCommit();
  }
  for (int i = 0; consume.live; ++i) {
    if (produce.live) {
      issue(produce, (i + S::kStages - 1) % S::kStages);
      produce.Step();
    }
    CpAsyncCommit();
    CpAsyncWait<S::kStages - 1>();
    if (consume.iter == 0) __syncthreads();  // every warp's share of this item's Q has landed
    __syncwarp();

    const int key_base = consume.c * consume.chunk + (consume.iter * kWarps + warp) * kKeys;
    const int key_end = consume.KeyEnd();
    if (key_base < key_end) {
      const uint16_t* q_s = q_tiles + (consume.item % S::kStages) * S::kQTileElems;
      const uint16_t* k_s = my_stages + (i % S::kStages) * 2 * S::kTileElems;
      const uint16_t* v_s = k_s + S::kTileElems;

      float s[2][4] = {{0.f, 0.f, 0.f, 0.f}, {0.f, 0.f, 0.f, 0.f}};
      float s_odd[2][4] = {{0.f, 0.f, 0.f, 0.f}, {0.f, 0.f, 0.f, 0.f}};
#pragma unroll
      for (int ks = 0; ks < kKSteps; ++ks) {
        uint32_t a[4], kb[4];
        LdMatrixX4(a[0], a[1], a[2], a[3], q_s + Swizzle<D>(q_row, 2 * ks + q_half));
        LdMatrixX4(kb[0], kb[1], kb[2], kb[3], k_s + Swizzle<D>(k_row, 2 * ks + k_half));
        MmaBf16(ks % 2 ? s_odd[0] : s[0], a[0], a[1], a[2], a[3], kb[0], kb[1]);
        MmaBf16(ks % 2 ? s_odd[1] : s[1], a[0], a[1], a[2], a[3], kb[2], kb[3]);
      }

      uint32_t hi[4], lo[4];
      SoftmaxSubtile<kDimTiles>(s, s_odd, key_base, key_end, qk_scale, state, hi, lo);
#pragma unroll
      for (int t = 0; t < kDimTiles; t += 2) {
        uint32_t vb[4];
        LdMatrixX4Trans(vb[0], vb[1], vb[2], vb[3], v_s + Swizzle<D>(v_row, t + v_half));
        MmaBf16(state.o[t], hi[0], hi[1], hi[2], hi[3], vb[0], vb[1]);
        MmaBf16(state.o[t], lo[0], lo[1], lo[2], lo[3], vb[0], vb[1]);
        MmaBf16(state.o[t + 1], hi[0], hi[1], hi[2], hi[3], vb[2], vb[3]);
        MmaBf16(state.o[t + 1], lo[0], lo[1], lo[2], lo[3], vb[2], vb[3]);
      }
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

// The device's SM count and the dynamic shared memory one CTA may opt into, set once on the kernel.
struct DeviceLimits {
  int sms = 1;
  size_t max_dynamic_smem = 0;
  cudaError_t status = cudaSuccess;
};

template <int D>
cudaError_t Launch(const PagedDecodeParams& p, cudaStream_t stream) {
  static PerDevice<DeviceLimits> limits_by_device;
  const DeviceLimits limits = limits_by_device.Get([] {
    DeviceLimits l;
    int device = 0, count = 0, optin = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device);
    cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
    l.sms = count > 0 ? count : 1;
    // The kernel has no static shared memory; were some added, the dynamic block would start after
    // it, rounded up to its 128-byte alignment, and the opt-in would have to leave room for that.
    cudaFuncAttributes attributes{};
    l.status = cudaFuncGetAttributes(&attributes, DecodePersistentKernel<D>);
    if (l.status != cudaSuccess) return l;
    const size_t static_smem = (attributes.sharedSizeBytes + 127) / 128 * 128;
    l.max_dynamic_smem = size_t(optin) > static_smem ? size_t(optin) - static_smem : 0;
    l.status = cudaFuncSetAttribute(DecodePersistentKernel<D>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    int(l.max_dynamic_smem));
    return l;
  });
  if (limits.status != cudaSuccess) return limits.status;
  // A batch whose schedule (4 bytes a row) no longer fits in shared memory beside the tiles runs the
  // gqa arm instead: the same bits, without the schedule.
  const size_t smem = PersistentSmem<D>::Total(p.batch);
  if (smem > limits.max_dynamic_smem) return LaunchDecodeGqa(p, stream);
  // Eager steps launch once per layer with the same batch: ask the occupancy once per size.
  thread_local size_t known_smem = 0;
  thread_local int known_per_sm = 0;
  if (smem != known_smem) {
    int per_sm = 0;
    const cudaError_t err =
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, DecodePersistentKernel<D>, kThreads, smem);
    if (err != cudaSuccess) return err;
    known_smem = smem;
    known_per_sm = per_sm;
  }
  const int per_sm = known_per_sm;
  if (per_sm == 0) return LaunchDecodeGqa(p, stream);
  const int64_t items = int64_t(p.batch) * p.num_kv_heads * p.num_chunks;
  const int grid = static_cast<int>(std::min<int64_t>(items, int64_t(limits.sms) * per_sm));
  return LaunchDependent(DecodePersistentKernel<D>, grid, kThreads, smem, stream, p);
}

}  // namespace

cudaError_t LaunchDecodePersistent(const PagedDecodeParams& p, cudaStream_t stream) {
  return p.head_dim == 256 ? Launch<256>(p, stream) : Launch<128>(p, stream);
}

}  // namespace vt::kernels::cuda::attention
