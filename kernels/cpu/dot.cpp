#include "kernels/cpu/dot.h"

#include <cstring>

#include "kernels/cpu/dtype.h"

// One build runs on any x86-64 and still uses AVX2 where the CPU has it: the
// compiler emits both versions and picks at load time. Contraction into FMA is
// off in ISO C++ mode, so both versions round identically.
#if defined(__x86_64__) && defined(__GNUC__)
#define VT_CPU_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define VT_CPU_CLONES
#endif

namespace vt::kernels::cpu {

namespace {

constexpr int kLanes = 16;

inline float WidenBf16(uint16_t b) {
  uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

inline float ReduceLanes(const float* acc) {
  float s = 0.0f;
  for (int j = 0; j < kLanes; ++j) s += acc[j];
  return s;
}

}  // namespace

VT_CPU_CLONES float DotF32(const float* x, const float* w, int64_t n) {
  float acc[kLanes] = {};
  int64_t k = 0;
  for (; k + kLanes <= n; k += kLanes) {
    for (int j = 0; j < kLanes; ++j) acc[j] += x[k + j] * w[k + j];
  }
  for (int j = 0; k < n; ++k, ++j) acc[j] += x[k] * w[k];
  return ReduceLanes(acc);
}

VT_CPU_CLONES float DotBf16(const float* x, const uint16_t* w, int64_t n) {
  float acc[kLanes] = {};
  int64_t k = 0;
  for (; k + kLanes <= n; k += kLanes) {
    for (int j = 0; j < kLanes; ++j) acc[j] += x[k + j] * WidenBf16(w[k + j]);
  }
  for (int j = 0; k < n; ++k, ++j) acc[j] += x[k] * WidenBf16(w[k]);
  return ReduceLanes(acc);
}

float DotF16(const float* x, const uint16_t* w, int64_t n) {
  float acc[kLanes] = {};
  int64_t k = 0;
  for (; k + kLanes <= n; k += kLanes) {
    for (int j = 0; j < kLanes; ++j) acc[j] += x[k + j] * Fp16ToFloat(w[k + j]);
  }
  for (int j = 0; k < n; ++k, ++j) acc[j] += x[k] * Fp16ToFloat(w[k]);
  return ReduceLanes(acc);
}

VT_CPU_CLONES void Axpy(float a, const float* v, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] += a * v[i];
}

}  // namespace vt::kernels::cpu
