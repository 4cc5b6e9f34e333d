#include "kernels/cpu/paged_kv.h"

#include <cstring>

namespace vt::kernels::cpu {

void PagedKvWrite(const PagedKvLayer& cache, const float* k, const float* v, const int64_t* slots, int64_t n) {
  const int64_t stride = cache.SlotStride();
  for (int64_t i = 0; i < n; ++i) {
    std::memcpy(cache.k + slots[i] * stride, k + i * stride, sizeof(float) * stride);
    std::memcpy(cache.v + slots[i] * stride, v + i * stride, sizeof(float) * stride);
  }
}

}  // namespace vt::kernels::cpu
