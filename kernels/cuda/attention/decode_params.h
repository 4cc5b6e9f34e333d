// The arguments of one paged decode-attention call, shared by every arm.
//
// Cache layout (K and V alike): [num_blocks, block_size, num_kv_heads, head_dim] bf16.
// Token t of request b lives in page block_tables[b * max_blocks_per_seq + t / block_size],
// slot t % block_size. Query head h reads KV head h / (num_q_heads / num_kv_heads), as
// Hugging Face's repeat_kv does.
#pragma once

#include <cstdint>

#include "kernels/host_device.h"

namespace vt::kernels::cuda {

struct PagedDecodeParams {
  const uint16_t* q = nullptr;        // [batch, num_q_heads, head_dim] bf16 bits
  const uint16_t* k_cache = nullptr;  // see layout above
  const uint16_t* v_cache = nullptr;
  const int32_t* block_tables = nullptr;  // [batch, max_blocks_per_seq]
  // [batch], each >= 1. The tensor-core prefill's merge of its own splits (prefill_tc.cu) passes
  // none: its rows are not requests, and MergeChunksKernel then merges every one.
  const int32_t* context_lens = nullptr;
  uint16_t* out = nullptr;                // [batch, num_q_heads, head_dim] bf16 bits

  // Split-KV workspace, used when num_chunks > 1: per (request, head, chunk) the
  // chunk's normalised output in fp32 and its log2-sum-exp.
  float* partial_out = nullptr;  // [batch, num_q_heads, num_chunks, head_dim]
  float* partial_lse = nullptr;  // [batch, num_q_heads, num_chunks]

  int batch = 0;
  int num_q_heads = 0;
  int num_kv_heads = 0;
  int head_dim = 0;
  int block_size = 0;
  int max_blocks_per_seq = 0;
  float scale = 0.f;  // softmax scale, usually 1/sqrt(head_dim)

  // Keys [c * chunk, (c + 1) * chunk) form chunk c of a request, with chunk = chunk_tokens when
  // positive, or ChunkTokensForContext(context) when kChunkByContext. With num_chunks == 1 the
  // single chunk covers the whole context and the output is written directly. num_chunks is
  // the grid's chunk dimension: chunks past a request's own count are empty.
  int chunk_tokens = 0;
  int num_chunks = 1;

  // Launch geometry of the GQA arm: consecutive chunks one CTA serves (<= 0: the launcher
  // chooses). It changes no arithmetic, so results are the same for every value.
  int chunks_per_cta = 0;

  // True when the kernel launched right before this call wrote neither the block tables nor the
  // context lengths, and of the K/V cache at most each request's last key: a decode step, whose
  // tables were uploaded before it and whose token's key and value are the only new ones. A
  // dependent launch (dependent_launch.h) of the persist arm then plans its work and starts reading
  // the older keys before it waits on that kernel. False (the default) reads nothing before.
  bool history_settled = false;

  // True when the kernel after this call issues loads before its wait (o_proj's weights: the skinny
  // GEMM's kBeforeWait form, or any int4 form): a dependently launched unsplit call then lets it launch
  // once it has waited itself, as a split call lets its merge kernel, so those loads overlap this call.
  bool successor_loads_early = false;
};


// chunk_tokens value: each request's chunk length follows from its own context alone, so its
// reduction order never depends on the other requests of the batch.
inline constexpr int kChunkByContext = -1;
inline constexpr int kMinChunkTokens = 128;   // two passes of a 4-warp CTA over 16-key subtiles
inline constexpr int kMaxChunkTokens = 4096;
inline constexpr int kTargetChunks = 32;      // enough CTAs to fill 132 SMs at batch 1
inline constexpr int kMaxDecodeChunks = 1024;  // the merge kernel's limit

// Contexts of up to this many keys are one chunk: split in two chunks of 128 keys they ran
// 1.1-1.7x slower on an H200 at batch 1-16 (docs/BENCHMARKS.md, "Short contexts as one chunk, and
// the decode attention's successor launched when it ends").
inline constexpr int kWholeContextTokens = 2 * kMinChunkTokens;

// kWholeContextTokens for contexts that short; beyond them the smallest power of two
// >= ceil(context / kTargetChunks), clamped to [kMin, kMax].
VT_HOST_DEVICE inline int ChunkTokensForContext(int context) {
  if (context <= kWholeContextTokens) return kWholeContextTokens;
  int chunk = kMinChunkTokens;
  while (chunk < kMaxChunkTokens && chunk * kTargetChunks < context) chunk *= 2;
  return chunk;
}

// The keys in each chunk of a request with `context` tokens: the whole context when the call is
// unsplit, else the fixed chunk or the one that follows from the context alone.
VT_HOST_DEVICE inline int ChunkLength(const PagedDecodeParams& p, int context) {
  if (p.num_chunks == 1) return context;
  return p.chunk_tokens > 0 ? p.chunk_tokens : ChunkTokensForContext(context);
}

// How many of the grid's chunks a request with `context` tokens fills (the rest are empty).
VT_HOST_DEVICE inline int LiveChunks(const PagedDecodeParams& p, int context) {
  if (p.num_chunks == 1) return 1;
  const int chunk = ChunkLength(p, context);
  const int filled = (context + chunk - 1) / chunk;
  return p.num_chunks < filled ? p.num_chunks : filled;
}

// An upper bound of ceil(c / ChunkTokensForContext(c)) over every context c <= max_context.
VT_HOST_DEVICE inline int MaxChunksByContext(int max_context) {
  if (max_context <= kWholeContextTokens) return 1;
  const int by_min = (max_context + kMinChunkTokens - 1) / kMinChunkTokens;
  const int by_max = (max_context + kMaxChunkTokens - 1) / kMaxChunkTokens;
  const int bounded = by_min < kTargetChunks ? by_min : kTargetChunks;
  return bounded > by_max ? bounded : by_max;
}

}  // namespace vt::kernels::cuda
