#include "kernels/cpu/decode_attention_reference.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace vt::kernels::cpu {

void DecodeAttentionReference(const DecodeReferenceShape& s, std::span<const float> q, std::span<const float> k,
                              std::span<const float> v, std::span<float> out) {
  const int group = s.num_q_heads / s.num_kv_heads;
  const int row = s.num_kv_heads * s.head_dim;  // stride between consecutive tokens
  std::vector<float> scores(static_cast<size_t>(s.context));
  for (int h = 0; h < s.num_q_heads; ++h) {
    const int kv = h / group;
    const float* qh = q.data() + static_cast<size_t>(h) * s.head_dim;
    float max_score = -std::numeric_limits<float>::infinity();
    for (int t = 0; t < s.context; ++t) {
      const float* kt = k.data() + static_cast<size_t>(t) * row + static_cast<size_t>(kv) * s.head_dim;
      float dot = 0.f;
      for (int d = 0; d < s.head_dim; ++d) dot += qh[d] * kt[d];
      scores[t] = dot * s.scale;
      max_score = std::max(max_score, scores[t]);
    }
    float sum = 0.f;
    for (int t = 0; t < s.context; ++t) {
      scores[t] = std::exp(scores[t] - max_score);
      sum += scores[t];
    }
    float* oh = out.data() + static_cast<size_t>(h) * s.head_dim;
    std::fill(oh, oh + s.head_dim, 0.f);
    for (int t = 0; t < s.context; ++t) {
      const float* vt_row = v.data() + static_cast<size_t>(t) * row + static_cast<size_t>(kv) * s.head_dim;
      const float w = scores[t] / sum;
      for (int d = 0; d < s.head_dim; ++d) oh[d] += w * vt_row[d];
    }
  }
}

}  // namespace vt::kernels::cpu
