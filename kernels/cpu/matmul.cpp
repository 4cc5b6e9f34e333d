#include "kernels/cpu/matmul.h"

#include <algorithm>

#include "kernels/cpu/dot.h"

namespace vt::kernels::cpu {

namespace {

// Output features per tile: 16 rows of a 4096-wide bf16 matrix are 128 KiB,
// which stays in L2 while every activation row passes over it.
constexpr int64_t kTileRows = 16;

float DotRow(const float* x, const WeightMatrix& w, int64_t row) {
  const void* r = w.Row(row);
  switch (w.dtype) {
    case DType::kF32: return DotF32(x, static_cast<const float*>(r), w.cols);
    case DType::kBF16: return DotBf16(x, static_cast<const uint16_t*>(r), w.cols);
    case DType::kF16: return DotF16(x, static_cast<const uint16_t*>(r), w.cols);
  }
  return 0.0f;
}

}  // namespace

void MatMul(ThreadPool& pool, const float* x, int64_t m, const WeightMatrix& w, const float* bias, float* y) {
  const int64_t n = w.rows;
  const int64_t k = w.cols;
  const int64_t tiles = (n + kTileRows - 1) / kTileRows;
  pool.ParallelFor(tiles, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t r0 = t * kTileRows;
      const int64_t r1 = std::min(n, r0 + kTileRows);
      int64_t i = 0;
      if (w.dtype != DType::kF16) {
        for (; i + 4 <= m; i += 4) {
          const float* rows[4] = {x + i * k, x + (i + 1) * k, x + (i + 2) * k, x + (i + 3) * k};
          for (int64_t r = r0; r < r1; ++r) {
            float out[4];
            if (w.dtype == DType::kBF16) {
              DotBf16x4(rows, static_cast<const uint16_t*>(w.Row(r)), k, out);
            } else {
              DotF32x4(rows, static_cast<const float*>(w.Row(r)), k, out);
            }
            for (int64_t j = 0; j < 4; ++j) y[(i + j) * n + r] = out[j] + (bias ? bias[r] : 0.0f);
          }
        }
      }
      for (; i < m; ++i) {
        const float* xi = x + i * k;
        float* yi = y + i * n;
        for (int64_t r = r0; r < r1; ++r) yi[r] = DotRow(xi, w, r) + (bias ? bias[r] : 0.0f);
      }
    }
  });
}

}  // namespace vt::kernels::cpu
