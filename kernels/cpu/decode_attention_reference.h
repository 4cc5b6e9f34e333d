// The oracle for the GPU decode-attention arms: single-query attention over a plain,
// contiguous K/V sequence in float32 (the caller passes bf16-rounded values). It shares
// no paging code with the kernels, so it cannot share a stride or page-table bug with them.
#pragma once

#include <span>

namespace vt::kernels::cpu {

struct DecodeReferenceShape {
  int num_q_heads = 0;
  int num_kv_heads = 0;
  int head_dim = 0;
  int context = 0;
  float scale = 0.f;
};

// q: [num_q_heads, head_dim]; k, v: [context, num_kv_heads, head_dim];
// out: [num_q_heads, head_dim]. Query head h attends with KV head h / (num_q_heads / num_kv_heads).
void DecodeAttentionReference(const DecodeReferenceShape& shape, std::span<const float> q,
                              std::span<const float> k, std::span<const float> v, std::span<float> out);

}  // namespace vt::kernels::cpu
