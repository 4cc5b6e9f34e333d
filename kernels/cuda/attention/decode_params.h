// The arguments of one paged decode-attention call, shared by every arm.
//
// Cache layout (K and V alike): [num_blocks, block_size, num_kv_heads, head_dim] bf16.
// Token t of request b lives in page block_tables[b * max_blocks_per_seq + t / block_size],
// slot t % block_size. Query head h reads KV head h / (num_q_heads / num_kv_heads), as
// Hugging Face's repeat_kv does.
#pragma once

#include <cstdint>

namespace vt::kernels::cuda {

struct PagedDecodeParams {
  const uint16_t* q = nullptr;        // [batch, num_q_heads, head_dim] bf16 bits
  const uint16_t* k_cache = nullptr;  // see layout above
  const uint16_t* v_cache = nullptr;
  const int32_t* block_tables = nullptr;  // [batch, max_blocks_per_seq]
  const int32_t* context_lens = nullptr;  // [batch], each >= 1
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

  // Keys [c * chunk_tokens, (c + 1) * chunk_tokens) form chunk c. With num_chunks == 1 the
  // single chunk covers the whole context and the output is written directly.
  int chunk_tokens = 0;
  int num_chunks = 1;
};

}  // namespace vt::kernels::cuda
