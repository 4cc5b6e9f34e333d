// Writes the K/V rows of new tokens into their pages of the paged cache.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "base/status.h"

namespace vt::kernels::cuda {

struct KvWriteParams {
  const uint16_t* k = nullptr;  // [num_tokens, num_kv_heads, head_dim] bf16 bits
  const uint16_t* v = nullptr;
  const int64_t* slots = nullptr;  // [num_tokens]: page * block_size + offset; < 0 skips the token
  uint16_t* k_cache = nullptr;     // [num_blocks, block_size, num_kv_heads, head_dim]
  uint16_t* v_cache = nullptr;
  int num_tokens = 0;
  int num_kv_heads = 0;
  int head_dim = 0;  // a multiple of 8
};

Status WriteKvCache(const KvWriteParams& params, cudaStream_t stream);

}  // namespace vt::kernels::cuda
