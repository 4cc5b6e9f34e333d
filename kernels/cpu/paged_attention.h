// Causal GQA attention that reads K/V through block tables: the reference the
// CUDA prefill and decode kernels are tested against.
#pragma once

#include <cstdint>

#include "kernels/cpu/paged_kv.h"
#include "kernels/cpu/thread_pool.h"

namespace vt::kernels::cpu {

// One sequence's share of a batch: its queries are rows
// [query_begin, query_begin + query_len) of q, at positions
// context_before, context_before + 1, ...; their K/V are already in the cache.
struct AttentionSeq {
  int64_t query_begin = 0;
  int64_t query_len = 0;
  int64_t context_before = 0;
  const int32_t* block_table = nullptr;
};

// q, out: [rows, heads, head_dim]. Query head h reads KV head h / (heads / kv_heads).
void PagedAttentionPrefill(ThreadPool& pool, const PagedKvLayer& cache, const float* q, int64_t heads,
                           const AttentionSeq* seqs, int64_t num_seqs, float scale, float* out);

// Decode: one query per sequence; seq i's query is row i and sees
// context_lens[i] tokens, itself included.
void PagedAttentionDecode(ThreadPool& pool, const PagedKvLayer& cache, const float* q, int64_t heads,
                          const int32_t* const* block_tables, const int64_t* context_lens, int64_t num_seqs,
                          float scale, float* out);

}  // namespace vt::kernels::cpu
