// The schedule the persistent decode arms share (decode_persistent.cu: a CTA per item, decode_solo.cu:
// a warp per item). A call's work is its (request, KV head, chunk) items, ordered request-major, then
// KV head, then chunk, each weighed in units by the arm (`Weights::ItemUnits(keys)`). Every CTA sums
// the requests' weights into a prefix in shared memory, and a worker (a CTA or a warp) takes the items
// whose position (the weight of the items before them) falls in its equal share of the total: no host
// planning, so CUDA graphs need nothing per step, and each request's chunks follow from its own context.
#pragma once

#include <cstdint>

#include "kernels/cuda/attention/decode_common.cuh"

namespace vt::kernels::cuda::attention {

// A request's weight for one KV head: its chunks' units, every chunk but the last a full one.
template <class Weights>
__device__ __forceinline__ int RequestUnits(const PagedDecodeParams& p, int context) {
  const int chunk = ChunkLength(p, context), chunks = LiveChunks(p, context);
  return (chunks - 1) * Weights::ItemUnits(chunk) + Weights::ItemUnits(context - (chunks - 1) * chunk);
}

// Weight prefix over the batch: prefix[b] = units of requests 0 .. b-1 (one KV head each);
// warp_sums is kWarps ints of shared memory. Every thread of the CTA calls it; it ends with a barrier.
template <class Weights, int kWarps>
__device__ void ScanContexts(const PagedDecodeParams& p, int* warp_sums, int* prefix) {
  constexpr int kThreads = kWarps * 32;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int carry = 0;
  if (threadIdx.x == 0) prefix[0] = 0;
  for (int base = 0; base < p.batch; base += kThreads) {
    const int i = base + threadIdx.x;
    int v = i < p.batch ? RequestUnits<Weights>(p, p.context_lens[i]) : 0;
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

// Worker `worker` of `workers`'s share of the positions [0, total): [start, stop).
__device__ __forceinline__ void WorkerShare(int64_t total, int64_t worker, int64_t workers, int64_t& start,
                                            int64_t& stop) {
  start = (worker * total + workers - 1) / workers;
  stop = ((worker + 1) * total + workers - 1) / workers;
}

// A position in a worker's run of items. An item's position counts every KV head's items before it.
// Seek and NextChunk move it and set `live` (the item is the worker's); the arm's own cursor keeps
// its place within the item.
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

  __device__ void EnterRequest() {
    context = p->context_lens[b];
    chunk = ChunkLength(*p, context);
    chunks = LiveChunks(*p, context);
    units = prefix[b + 1] - prefix[b];
    chunk_units = Weights::ItemUnits(chunk);
  }
  __device__ int64_t Position() const {
    return int64_t(prefix[b]) * kv_heads + int64_t(h) * units + int64_t(c) * chunk_units;
  }
  __device__ void EnterItem() { live = b < batch && Position() < stop; }
  __device__ int KeyBegin() const { return c * chunk; }
  __device__ int KeyEnd() const { return min(context, (c + 1) * chunk); }
  // The first item at or after position `start`.
  __device__ void Seek(int64_t start) {
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
};

// The merge reads every chunk slot of the grid: the ones past a request's context weigh nothing
// (lse = -inf). Requests are dealt out over the CTAs of kThreads threads for these writes; every
// thread calls it.
template <int kThreads>
__device__ __forceinline__ void MarkEmptyChunks(const PagedDecodeParams& p) {
  if (p.num_chunks <= 1) return;
  for (int b = blockIdx.x; b < p.batch; b += gridDim.x) {
    const int live = LiveChunks(p, p.context_lens[b]);
    const int dead = p.num_chunks - live;
    for (int i = threadIdx.x; i < dead * p.num_q_heads; i += kThreads) {
      p.partial_lse[(int64_t(b) * p.num_q_heads + i / dead) * p.num_chunks + live + i % dead] = -INFINITY;
    }
  }
}

}  // namespace vt::kernels::cuda::attention
