// The memory behind the KV block ids: per layer, K and V arrays of
// [num_blocks, block_size, kv_heads, head_dim] float32. float32 because the
// CPU path is the reference the GPU kernels and transformers are compared to.
#pragma once

#include <cstdint>
#include <cstdlib>
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
  struct Free {
    void operator()(float* p) const { std::free(p); }
  };

  int64_t num_blocks_, block_size_, kv_heads_, head_dim_;
  uint64_t size_;
  // From calloc: a pool this large comes straight from mmap, whose pages the kernel supplies
  // zeroed on first touch, so start-up neither writes nor makes resident memory that no
  // request has used yet (zeroing a 2 GiB fp32 pool eagerly took seconds and held it all).
  std::unique_ptr<float[], Free> data_;
};

}  // namespace vt
