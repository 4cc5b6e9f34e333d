// The memory behind the KV block ids: per layer, K and V arrays of
// [num_blocks, block_size, kv_heads, head_dim] float32. float32 because the
// CPU path is the reference the GPU kernels and transformers are compared to.
#pragma once

#include <cstdint>
#include <memory>

#include "engine/config/model_config.h"
#include "kernels/cpu/paged_kv.h"

namespace vt {

class KvCacheStorage {
 public:
  KvCacheStorage(const ModelConfig& config, int32_t num_blocks, int32_t block_size);

  kernels::cpu::PagedKvLayer Layer(int64_t layer);

  // Bytes one token's K and V take over all layers.
  static uint64_t BytesPerToken(const ModelConfig& config);

 private:
  int64_t num_blocks_, block_size_, kv_heads_, head_dim_;
  // Left uninitialised: every slot is written before attention reads it, and
  // untouched pages of a large pool then cost no memory.
  uint64_t size_;
  std::unique_ptr<float[]> data_;
};

}  // namespace vt
