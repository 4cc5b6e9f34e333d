#include "kernels/cpu/rms_norm.h"

#include <cmath>

namespace vt::kernels::cpu {

void RmsNorm(const float* in, const float* weight, int64_t rows, int64_t dim, float eps, float* out) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* x = in + r * dim;
    float* y = out + r * dim;
    // Summing in double keeps the mean within one float ulp of the exact value
    // whatever the width, so the reference does not drift with hidden size.
    double sum = 0.0;
    for (int64_t i = 0; i < dim; ++i) sum += static_cast<double>(x[i]) * x[i];
    const float inv = static_cast<float>(1.0 / std::sqrt(sum / static_cast<double>(dim) + eps));
    for (int64_t i = 0; i < dim; ++i) y[i] = weight[i] * (x[i] * inv);
  }
}

}  // namespace vt::kernels::cpu
