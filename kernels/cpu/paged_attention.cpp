#include "kernels/cpu/paged_attention.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "kernels/cpu/dot.h"

namespace vt::kernels::cpu {

namespace {

struct QueryItem {
  int64_t row;
  int64_t context;  // keys visible to this query, itself included
  const int32_t* block_table;
};

// Softmax(q·Kᵀ·scale)·V over the first `context` cached tokens of one head.
void AttendOne(const PagedKvLayer& cache, const float* q, int64_t kv_head, const QueryItem& item, float scale,
               std::vector<float>& scores, float* out) {
  const int64_t d = cache.head_dim;
  const int64_t stride = cache.SlotStride();
  scores.resize(static_cast<size_t>(item.context));
  float max_score = -INFINITY;
  for (int64_t j = 0; j < item.context; ++j) {
    const int64_t slot = static_cast<int64_t>(item.block_table[j / cache.block_size]) * cache.block_size +
                         j % cache.block_size;
    scores[j] = DotF32(q, cache.k + slot * stride + kv_head * d, d) * scale;
    max_score = std::max(max_score, scores[j]);
  }
  float sum = 0.0f;
  for (int64_t j = 0; j < item.context; ++j) {
    scores[j] = std::exp(scores[j] - max_score);
    sum += scores[j];
  }
  std::memset(out, 0, sizeof(float) * d);
  const float inv = 1.0f / sum;
  for (int64_t j = 0; j < item.context; ++j) {
    const int64_t slot = static_cast<int64_t>(item.block_table[j / cache.block_size]) * cache.block_size +
                         j % cache.block_size;
    Axpy(scores[j] * inv, cache.v + slot * stride + kv_head * d, out, d);
  }
}

void Attend(ThreadPool& pool, const PagedKvLayer& cache, const float* q, int64_t heads,
            const std::vector<QueryItem>& items, float scale, float* out) {
  const int64_t group = heads / cache.kv_heads;
  const int64_t d = cache.head_dim;
  const int64_t work = static_cast<int64_t>(items.size()) * heads;
  pool.ParallelFor(work, [&](int64_t w0, int64_t w1) {
    std::vector<float> scores;
    for (int64_t w = w0; w < w1; ++w) {
      const QueryItem& item = items[w / heads];
      const int64_t h = w % heads;
      const int64_t offset = (item.row * heads + h) * d;
      AttendOne(cache, q + offset, h / group, item, scale, scores, out + offset);
    }
  });
}

}  // namespace

void PagedAttentionPrefill(ThreadPool& pool, const PagedKvLayer& cache, const float* q, int64_t heads,
                           const AttentionSeq* seqs, int64_t num_seqs, float scale, float* out) {
  std::vector<QueryItem> items;
  for (int64_t s = 0; s < num_seqs; ++s) {
    for (int64_t i = 0; i < seqs[s].query_len; ++i) {
      items.push_back({seqs[s].query_begin + i, seqs[s].context_before + i + 1, seqs[s].block_table});
    }
  }
  Attend(pool, cache, q, heads, items, scale, out);
}

void PagedAttentionDecode(ThreadPool& pool, const PagedKvLayer& cache, const float* q, int64_t heads,
                          const int32_t* const* block_tables, const int64_t* context_lens, int64_t num_seqs,
                          float scale, float* out) {
  std::vector<QueryItem> items;
  for (int64_t s = 0; s < num_seqs; ++s) items.push_back({s, context_lens[s], block_tables[s]});
  Attend(pool, cache, q, heads, items, scale, out);
}

}  // namespace vt::kernels::cpu
