#include "engine/backends/cpu/kv_cache_storage.h"

#include <new>

namespace vt {

KvCacheStorage::KvCacheStorage(const ModelConfig& c, int32_t num_blocks, int32_t block_size)
    : num_blocks_(num_blocks),
      block_size_(block_size),
      kv_heads_(c.num_kv_heads),
      head_dim_(c.head_dim),
      size_(static_cast<uint64_t>(2 * c.num_layers * num_blocks * block_size * c.kv_size())),
      data_(static_cast<float*>(std::calloc(size_, sizeof(float)))) {
  if (!data_ && size_ > 0) throw std::bad_alloc();
}

kernels::cpu::PagedKvLayer KvCacheStorage::Layer(int64_t layer) {
  const int64_t per = num_blocks_ * block_size_ * kv_heads_ * head_dim_;
  float* base = data_.get() + 2 * layer * per;
  return {base, base + per, num_blocks_, block_size_, kv_heads_, head_dim_};
}

uint64_t KvCacheStorage::BytesPerToken(const ModelConfig& c) {
  return static_cast<uint64_t>(2 * c.num_layers * c.kv_size()) * sizeof(float);
}

}  // namespace vt
