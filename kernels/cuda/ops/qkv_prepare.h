// The step between the fused QKV projection and attention, in one pass over the projection's
// output: bias (Qwen2), per-head RMSNorm of q and k (Qwen3), RoPE on q and k, q written out for
// attention and k/v written straight into their pages of the paged cache. One kernel instead of
// bias + norm + rope + copy + KV-write launches, and the projection output is read once.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "base/status.h"

namespace vt::kernels::cuda {

struct QkvPrepareParams {
  const uint16_t* qkv = nullptr;     // [tokens, (num_q_heads + 2 * num_kv_heads) * head_dim], q | k | v
  const uint16_t* bias = nullptr;    // [(num_q_heads + 2 * num_kv_heads) * head_dim] or null
  const uint16_t* q_norm = nullptr;  // [head_dim] or null: no q/k norm
  const uint16_t* k_norm = nullptr;  // [head_dim]; set exactly when q_norm is
  float eps = 1e-6f;
  const int32_t* positions = nullptr;  // [tokens]
  const float* inv_freq = nullptr;     // [head_dim / 2]: the rope schedule, precomputed
  const int64_t* slots = nullptr;      // [tokens]: page * block_size + offset; < 0 skips the K/V write
  uint16_t* q_out = nullptr;           // [tokens, num_q_heads, head_dim]
  uint16_t* k_cache = nullptr;         // [num_blocks, block_size, num_kv_heads, head_dim]
  uint16_t* v_cache = nullptr;
  int tokens = 0;
  int num_q_heads = 0, num_kv_heads = 0;
  int head_dim = 0;  // 64, 128 or 256
};

// Launch-only (no allocation, no synchronisation): safe inside CUDA graph capture.
Status PrepareQkv(const QkvPrepareParams& p, cudaStream_t stream);

}  // namespace vt::kernels::cuda
