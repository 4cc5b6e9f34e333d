// Paged causal attention for a prefill chunk, built on the decode arms: query token i of a
// chunk attends to keys 0..positions[i] of its sequence (the cached prefix and the chunk itself,
// whose K/V were written to the cache first), which is exactly a decode call with context
// positions[i] + 1. The tokens become the decode batch; their block-table rows are gathered
// into a workspace. Correct for any chunk and any arm; a tensor-core prefill kernel that shares
// K/V loads across the chunk's queries is the faster path still to come.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "base/status.h"
#include "kernels/cuda/attention/decode_params.h"
#include "kernels/cuda/attention/decode_plan.h"

namespace vt::kernels::cuda {

struct PrefillAttentionParams {
  const uint16_t* q = nullptr;         // [tokens, num_q_heads, head_dim]
  const uint16_t* k_cache = nullptr;   // [num_blocks, block_size, num_kv_heads, head_dim]
  const uint16_t* v_cache = nullptr;
  const int32_t* seq_of_token = nullptr;  // [tokens]: the row of block_tables each token belongs to
  const int32_t* positions = nullptr;     // [tokens]: position of each token in its sequence
  const int32_t* block_tables = nullptr;  // [sequences, max_blocks_per_seq]
  uint16_t* out = nullptr;                // [tokens, num_q_heads, head_dim]
  int tokens = 0;
  int num_q_heads = 0, num_kv_heads = 0, head_dim = 0, block_size = 0, max_blocks_per_seq = 0;
  int max_context = 0;  // the largest positions[i] + 1
  float scale = 0.f;
};

// The decode call over p's tokens with the given per-token table rows and context lengths. A
// decode batch (token i is sequence i's only new one) can pass p's own tables and its contexts
// straight to RunPagedDecode; a prefill chunk needs them gathered per token first.
PagedDecodeParams AsDecodeParams(const PrefillAttentionParams& p, const int32_t* token_tables,
                                 const int32_t* context_lens);

// Workspace bytes: the gathered tables, the contexts and the decode split partials.
size_t PrefillWorkspaceBytes(const PrefillAttentionParams& p, const DecodePlan& plan);

Status RunPrefillAttention(const PrefillAttentionParams& p, const DecodePlan& plan, void* workspace,
                           cudaStream_t stream);

}  // namespace vt::kernels::cuda
