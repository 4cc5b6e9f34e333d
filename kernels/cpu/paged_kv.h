// The paged KV cache as the kernels see it: per layer, K and V are each
// [num_blocks, block_size, kv_heads, head_dim] float32, and a token's slot is
// block_id * block_size + offset. Which blocks a sequence owns is the block
// table the KV manager hands out; the kernels only follow it.
#pragma once

#include <cstdint>

namespace vt::kernels::cpu {

struct PagedKvLayer {
  float* k = nullptr;
  float* v = nullptr;
  int64_t num_blocks = 0;
  int64_t block_size = 0;
  int64_t kv_heads = 0;
  int64_t head_dim = 0;

  int64_t SlotStride() const { return kv_heads * head_dim; }
};

// Copies n tokens of k and v ([n, kv_heads, head_dim]) into their slots.
void PagedKvWrite(const PagedKvLayer& cache, const float* k, const float* v, const int64_t* slots, int64_t n);

}  // namespace vt::kernels::cpu
