#include "kernels/cpu/embedding.h"

namespace vt::kernels::cpu {

void Embedding(const WeightMatrix& table, const int32_t* ids, int64_t n, float* out) {
  for (int64_t i = 0; i < n; ++i) RowToFloat(table.dtype, table.Row(ids[i]), table.cols, out + i * table.cols);
}

}  // namespace vt::kernels::cpu
