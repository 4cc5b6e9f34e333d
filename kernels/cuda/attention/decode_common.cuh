// Device helpers shared by the decode-attention arms: page addressing, bf16 vector
// loads, warp reductions and the epilogue that writes either the final bf16 output
// or a split-KV partial.
#pragma once

#include <cuda_bf16.h>

#include <cstdint>

#include "kernels/cuda/attention/decode_params.h"
#include "kernels/cuda/bf16.cuh"

namespace vt::kernels::cuda::attention {

// log2(e): scores are kept in the log2 domain so the softmax uses exp2f.
constexpr float kLog2e = 1.4426950408889634f;

// The page ids a CTA's key range needs, copied once into shared memory so the key loop does
// not wait on a global page-table read before each K/V load. Ranges longer than
// kMaxCachedPages pages read the table in global memory instead.
constexpr int kMaxCachedPages = 264;

struct PageWindow {
  const int32_t* table;  // this request's row of the block table
  const int* cached;     // shared memory, `count` entries starting at table index `first`
  int first;
  int count;
  int block_shift;  // log2(block_size)

  __device__ __forceinline__ int PageOf(int t) const {
    const int i = (t >> block_shift) - first;
    return (i >= 0 && i < count) ? cached[i] : __ldg(table + (t >> block_shift));
  }
};

// Fills `cached` with the pages of keys [begin, end); every thread of the CTA must call it.
__device__ __forceinline__ PageWindow CachePages(const PagedDecodeParams& p, int b, int begin, int end, int* cached) {
  PageWindow w;
  w.table = p.block_tables + static_cast<int64_t>(b) * p.max_blocks_per_seq;
  w.cached = cached;
  w.block_shift = __ffs(p.block_size) - 1;
  w.first = begin >> w.block_shift;
  const int pages = end > begin ? ((end - 1) >> w.block_shift) - w.first + 1 : 0;
  w.count = pages <= kMaxCachedPages ? pages : 0;
  for (int i = threadIdx.x; i < w.count; i += blockDim.x) cached[i] = __ldg(w.table + w.first + i);
  __syncthreads();
  return w;
}

// Offset (in elements) of token `t`'s row for `kv_head` in a paged cache.
__device__ __forceinline__ int64_t PagedRowOffset(const PagedDecodeParams& p, const PageWindow& w, int t,
                                                  int kv_head) {
  const int slot = t & (p.block_size - 1);
  return ((static_cast<int64_t>(w.PageOf(t)) * p.block_size + slot) * p.num_kv_heads + kv_head) * p.head_dim;
}

// Loads N consecutive bf16 values (N = 4 or 8) as floats with one 8- or 16-byte load.
template <int N>
__device__ __forceinline__ void LoadBf16Row(const uint16_t* src, float (&dst)[N]) {
  static_assert(N == 4 || N == 8, "row segments are 4 or 8 elements");
  if constexpr (N == 8) {
    const uint4 v = __ldg(reinterpret_cast<const uint4*>(src));
    const uint32_t w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      dst[2 * i] = __uint_as_float(w[i] << 16);
      dst[2 * i + 1] = __uint_as_float(w[i] & 0xffff0000u);
    }
  } else {
    const uint2 v = __ldg(reinterpret_cast<const uint2*>(src));
    const uint32_t w[2] = {v.x, v.y};
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      dst[2 * i] = __uint_as_float(w[i] << 16);
      dst[2 * i + 1] = __uint_as_float(w[i] & 0xffff0000u);
    }
  }
}

// Sum over lanes [0, WIDTH) of each WIDTH-lane group; every lane gets the result.
template <int WIDTH = 32>
__device__ __forceinline__ float GroupSum(float v) {
#pragma unroll
  for (int offset = WIDTH / 2; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

// Scale factor that moves a running sum from max `m_old` to max `m_new` (log2 domain).
// A state that has seen no key yet (m_old = -inf) contributes nothing.
__device__ __forceinline__ float Rescale(float m_old, float m_new) {
  return m_old == -INFINITY ? 0.f : exp2f(m_old - m_new);
}

// Whether request b's keys form one chunk: always in an unsplit call; in a split call when its own
// context fills only its first chunk (LiveChunks). Such a request's result is final where its chunk
// ends, so it is written as bf16 there and the merge passes it by (MergeChunksKernel): the bits the
// merge gives one live chunk (a weight of exactly 1), without the partial's round trip. It follows
// from the request's own context, so a request's path never depends on the rest of the batch.
// The same from the request's LiveChunks, where the caller has them already.
__device__ __forceinline__ bool SoleChunkOf(const PagedDecodeParams& p, int live) {
  return p.num_chunks == 1 || live == 1;
}
__device__ __forceinline__ bool SoleChunk(const PagedDecodeParams& p, int b) {
  return SoleChunkOf(p, LiveChunks(p, p.context_lens[b]));
}

// Writes the result of (request b, query head h, chunk c): `o` is the normalised output for
// this thread's `count` consecutive elements starting at `d0`; `m` and `l` the chunk's max and
// sum in the log2 domain. A request of one chunk (SoleChunk) gets bf16; the chunks of a split
// request write the fp32 partial and the chunk's log2-sum-exp (thread 0 of the head only, `write_lse`).
__device__ __forceinline__ void WriteHeadResult(const PagedDecodeParams& p, int b, int h, int c, int d0,
                                                const float* o, int count, float m, float l, bool write_lse) {
  const int64_t head = static_cast<int64_t>(b) * p.num_q_heads + h;
  if (SoleChunk(p, b)) {
    if (c != 0) return;  // an arm with a CTA per chunk slot also ends the request's empty ones
    uint16_t* dst = p.out + head * p.head_dim + d0;
    for (int i = 0; i < count; ++i) dst[i] = FloatToBf16Bits(o[i]);
    return;
  }
  const int64_t slot = head * p.num_chunks + c;
  float* dst = p.partial_out + slot * p.head_dim + d0;
  for (int i = 0; i < count; ++i) dst[i] = o[i];
  if (write_lse) p.partial_lse[slot] = l > 0.f ? m + log2f(l) : -INFINITY;
}

// The key range [begin, end) that chunk c of a request with `context` tokens covers; empty
// when the request has fewer chunks than the grid.
__device__ __forceinline__ void ChunkRange(const PagedDecodeParams& p, int context, int c, int& begin, int& end) {
  const int chunk = ChunkLength(p, context);
  begin = min(context, c * chunk);
  end = min(context, begin + chunk);
}

}  // namespace vt::kernels::cuda::attention
