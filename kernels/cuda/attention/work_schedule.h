// The work schedule of the persistent decode arms (decode_persistent.cu: a CTA per work item,
// decode_solo.cu: a warp per work item), in plain C++ compiled for the GPU and the CPU alike, so that
// the CPU tests check what the kernels walk (tests/kernels/cuda/attention/work_schedule_test.cpp).
//
// A call's work is its (request, KV head, chunk) items, ordered request-major, then KV head, then
// chunk, each weighed in units by the arm (`Weights::ItemUnits(keys)`). The kernels sum the requests'
// weights into a prefix (work_items.cuh), and a worker takes the items whose position (the weight of
// the items before them) falls in its equal share of the total: no host planning, so CUDA graphs need
// nothing per step, and each request's chunks follow from its own context.
#pragma once

#include <cstdint>

#include "kernels/cuda/attention/decode_params.h"
#include "kernels/host_device.h"

namespace vt::kernels::cuda::attention {

constexpr int kSubtileKeys = 16;  // keys a warp folds into its softmax at a time
// The persist arm's warps a CTA, which share each item in interleaved subtiles: the key streams whose
// order and merge every persistent arm keeps, so that they agree bit for bit.
constexpr int kItemStreams = 4;

// The persist arm's weights, in units of one 16-key subtile: an item costs its 64-key iterations (a
// short item streams a whole one) plus a fixed part for its Q tile, its start barrier and its warp
// merge and write, put at two subtiles from the measured cost of 128-key chunks (73% of the copy
// ceiling against 88% with 512-key ones, docs/BENCHMARKS.md). Weighing keys alone sent every one-key
// row of a padded CUDA-graph batch to one CTA, which then ran hundreds of items while the rest of the
// grid waited (batch 256 decode steps 5x slower than the gqa arm).
struct CtaItemWeights {
  static constexpr int kIterationKeys = kItemStreams * kSubtileKeys;
  static constexpr int kItemCostUnits = 2;
  static VT_HOST_DEVICE int ItemUnits(int keys) {
    return (keys + kIterationKeys - 1) / kIterationKeys * (kIterationKeys / kSubtileKeys) + kItemCostUnits;
  }
};

// The solo arm's: its subtiles plus the same fixed part for its Q rows, four stream states stored and
// their merge (not measured for this arm). Never more than the persist arm's.
struct WarpItemWeights {
  static constexpr int kItemCostUnits = 2;
  static VT_HOST_DEVICE int ItemUnits(int keys) { return (keys + kSubtileKeys - 1) / kSubtileKeys + kItemCostUnits; }
};

// A request's weight for one KV head: its chunks' units, every chunk but the last a full one. Chunks
// are at least 16 keys, so that is at most one unit a key from 11 keys on and 6 units below: the
// 32-bit prefix holds every batch CheckArmSupports admits (kMaxPersistentKeys, decode_plan.h).
template <class Weights>
VT_HOST_DEVICE int RequestUnits(const PagedDecodeParams& p, int context) {
  const int chunk = ChunkLength(p, context), chunks = LiveChunks(p, context);
  return (chunks - 1) * Weights::ItemUnits(chunk) + Weights::ItemUnits(context - (chunks - 1) * chunk);
}

// The workers that share a call's items: one each while there are fewer items than CTAs, the
// lowest-numbered CTAs. With every CTA a worker, only every r-th one gets an item (a graph planned
// for long contexts runs shorter ones: 17 live chunks of a grid planned for 32), and busy CTAs can
// share SMs while others idle. Which CTA runs an item changes no bits; one request at 32k keys decodes
// 2.5% faster (docs/BENCHMARKS.md, "Sixteen chunks for long contexts; the items' workers").
VT_HOST_DEVICE inline int64_t ItemWorkers(int64_t items, int64_t grid) { return items < grid ? items : grid; }

// n / d for n >= 0 and d > 0, in 32 bits where both fit: on a GPU a 64-bit division is a subroutine of
// ~80 instructions, and the persistent arms' CTAs each ran three of them (WorkerShare, Seek) before
// their first MMA, alone on their SMs at short contexts. Same quotient either way.
VT_HOST_DEVICE inline int64_t DivideNonNegative(int64_t n, int64_t d) {
  if (((n | d) >> 32) == 0) return int64_t(uint32_t(n) / uint32_t(d));
  return n / d;
}

// Worker `worker` of `workers`'s share of the positions [0, total): [start, stop).
VT_HOST_DEVICE inline void WorkerShare(int64_t total, int64_t worker, int64_t workers, int64_t& start,
                                       int64_t& stop) {
  start = DivideNonNegative(worker * total + workers - 1, workers);
  stop = DivideNonNegative((worker + 1) * total + workers - 1, workers);
}

// A position in a worker's run of items; `prefix[b]` is the units of requests 0 .. b-1 (one KV head
// each). Seek and NextChunk move it and set `live` (the item is the worker's); the arm's own cursor
// keeps its place within the item.
template <class Weights>
struct ItemWalk {
  const int* prefix;
  int batch, kv_heads;
  const PagedDecodeParams* p;
  int64_t stop;  // items at or past this position belong to the next worker
  int b, h, c;
  int context, chunk, chunks;
  int units, chunk_units;  // one KV head's weight, and a full chunk's
  bool live;

  VT_HOST_DEVICE void EnterRequest() {
    context = p->context_lens[b];
    chunk = ChunkLength(*p, context);
    chunks = LiveChunks(*p, context);
    units = prefix[b + 1] - prefix[b];
    chunk_units = Weights::ItemUnits(chunk);
  }
  VT_HOST_DEVICE int64_t Position() const {
    return int64_t(prefix[b]) * kv_heads + int64_t(h) * units + int64_t(c) * chunk_units;
  }
  VT_HOST_DEVICE void EnterItem() { live = b < batch && Position() < stop; }
  VT_HOST_DEVICE int KeyBegin() const { return c * chunk; }
  VT_HOST_DEVICE int KeyEnd() const { return context < (c + 1) * chunk ? context : (c + 1) * chunk; }
  // The first item at or after position `start`.
  VT_HOST_DEVICE void Seek(int64_t start) {
    if (start >= int64_t(prefix[batch]) * kv_heads) {
      b = batch;
      h = c = 0;
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
    h = static_cast<int>(DivideNonNegative(offset, units));
    const int within = static_cast<int>(offset - int64_t(h) * units);
    c = (within + chunk_units - 1) / chunk_units;
    if (c < chunks) {
      EnterItem();
    } else {  // `start` lies inside this KV head's last chunk: the next item is the first at or after it
      c = chunks - 1;
      NextChunk();
    }
  }
  VT_HOST_DEVICE void NextChunk() {
    if (++c >= chunks) {  // >=: a request of no keys has no chunks
      c = 0;
      if (++h == kv_heads) {
        h = 0;
        if (++b < batch) EnterRequest();
      }
    }
    EnterItem();
  }
};

// The order in which one warp of the solo arm walks an item of `subtiles` 16-key subtiles: the key
// streams of the persist arm's warps (stream w: subtiles w, w + 4, w + 8, ...), one after another.
// Streams that have subtiles come first.
struct SubtileStreams {
  int subtiles;     // the item's subtiles
  int stream, sub;  // the stream of the current subtile, and its place in that stream

  VT_HOST_DEVICE void Start(int item_subtiles) {
    subtiles = item_subtiles;
    stream = sub = 0;
  }
  VT_HOST_DEVICE int StreamLength(int w) const { return (subtiles - w + kItemStreams - 1) / kItemStreams; }
  VT_HOST_DEVICE int LiveStreams() const { return subtiles < kItemStreams ? subtiles : kItemStreams; }
  // The current subtile's index within the item.
  VT_HOST_DEVICE int Subtile() const { return sub * kItemStreams + stream; }
  VT_HOST_DEVICE bool LastOfStream() const { return sub + 1 == StreamLength(stream); }
  VT_HOST_DEVICE bool LastOfItem() const {
    return LastOfStream() && (stream + 1 == kItemStreams || StreamLength(stream + 1) == 0);
  }
  // Moves to the next subtile; false past the item's last.
  VT_HOST_DEVICE bool Advance() {
    if (++sub < StreamLength(stream)) return true;
    sub = 0;
    return ++stream < kItemStreams && StreamLength(stream) > 0;
  }
};

}  // namespace vt::kernels::cuda::attention
