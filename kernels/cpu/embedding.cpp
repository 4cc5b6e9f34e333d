#include "kernels/cpu/embedding.h"

#include <algorithm>

namespace vt::kernels::cpu {

void Embedding(const WeightMatrix& table, const int32_t* ids, int64_t n, float* out) {
  for (int64_t i = 0; i < n; ++i) RowToFloat(table.dtype, table.Row(ids[i]), table.cols, out + i * table.cols);
}

void EmbeddingSlice(const WeightMatrix& table, int64_t first_id, const int32_t* ids, int64_t n, float* out) {
  for (int64_t i = 0; i < n; ++i) {
    const int64_t row = ids[i] - first_id;
    float* dst = out + i * table.cols;
    if (row >= 0 && row < table.rows) {
      RowToFloat(table.dtype, table.Row(row), table.cols, dst);
    } else {
      std::fill(dst, dst + table.cols, 0.0f);
    }
  }
}

}  // namespace vt::kernels::cpu
