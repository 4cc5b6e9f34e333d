#include "kernels/cpu/dot.h"

#include <cstring>

#include "kernels/cpu/dtype.h"

// One build runs on any x86-64 and still uses AVX2 where the CPU has it: the
// compiler emits both versions and picks one at load time, the same one for
// every call. The AVX2 version fuses multiply-adds and the baseline cannot, so
// results may differ in the last bits between machines, never within one.
#if defined(__x86_64__) && defined(__GNUC__)
#define VT_CPU_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define VT_CPU_CLONES
#endif

namespace vt::kernels::cpu {

namespace {

// Every dot product keeps 16 partial sums: lane j adds x[k+j]*w[k+j] for
// k = 0, 16, 32, ..., the tail goes to lanes 0.., and the lanes are summed in
// order. The vector types only spell that out for the compiler; within one
// clone every function here rounds the same way.
typedef float F8 __attribute__((vector_size(32)));
typedef uint16_t U16x8 __attribute__((vector_size(16)));
typedef uint32_t U32x8 __attribute__((vector_size(32)));

constexpr int kLanes = 16;

inline float WidenBf16(uint16_t b) {
  uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// Vectors go through pointers, never by value: a 32-byte vector argument or
// return would have a different ABI in the AVX and the baseline clone.
[[gnu::always_inline]] inline void LoadF8(const float* p, F8* v) { std::memcpy(v, p, sizeof *v); }

[[gnu::always_inline]] inline void LoadBf16x8(const uint16_t* p, F8* v) {
  U16x8 h;
  std::memcpy(&h, p, sizeof h);
  const U32x8 u = __builtin_convertvector(h, U32x8) << 16;
  std::memcpy(v, &u, sizeof *v);
}

struct FromF32 {
  using T = float;
  [[gnu::always_inline]] static void Load8(const float* p, F8* v) { LoadF8(p, v); }
  static float Widen(float v) { return v; }
};
struct FromBf16 {
  using T = uint16_t;
  [[gnu::always_inline]] static void Load8(const uint16_t* p, F8* v) { LoadBf16x8(p, v); }
  static float Widen(uint16_t v) { return WidenBf16(v); }
};

struct Acc {
  F8 lo = {}, hi = {};
};

[[gnu::always_inline]] inline float Finish(const Acc& a, const float* x, const float* wtail, int64_t tail) {
  float lanes[kLanes];
  std::memcpy(lanes, &a.lo, sizeof a.lo);
  std::memcpy(lanes + 8, &a.hi, sizeof a.hi);
  for (int64_t j = 0; j < tail; ++j) lanes[j] += x[j] * wtail[j];
  float s = 0.0f;
  for (int j = 0; j < kLanes; ++j) s += lanes[j];
  return s;
}

// Inlined into each clone, so it is compiled for that clone's instruction set.
template <typename From, int kRows>
[[gnu::always_inline]] inline void DotRows(const float* const* x, const typename From::T* w, int64_t n, float* out) {
  Acc acc[kRows];
  int64_t k = 0;
  for (; k + kLanes <= n; k += kLanes) {
    F8 wlo, whi;
    From::Load8(w + k, &wlo);
    From::Load8(w + k + 8, &whi);
    for (int r = 0; r < kRows; ++r) {
      F8 xlo, xhi;
      LoadF8(x[r] + k, &xlo);
      LoadF8(x[r] + k + 8, &xhi);
      acc[r].lo += xlo * wlo;
      acc[r].hi += xhi * whi;
    }
  }
  float wtail[kLanes];
  for (int64_t j = 0; k + j < n; ++j) wtail[j] = From::Widen(w[k + j]);
  for (int r = 0; r < kRows; ++r) out[r] = Finish(acc[r], x[r] + k, wtail, n - k);
}

}  // namespace

VT_CPU_CLONES float DotF32(const float* x, const float* w, int64_t n) {
  float out;
  DotRows<FromF32, 1>(&x, w, n, &out);
  return out;
}

VT_CPU_CLONES float DotBf16(const float* x, const uint16_t* w, int64_t n) {
  float out;
  DotRows<FromBf16, 1>(&x, w, n, &out);
  return out;
}

VT_CPU_CLONES void DotF32x4(const float* const* x, const float* w, int64_t n, float* out) {
  DotRows<FromF32, 4>(x, w, n, out);
}

VT_CPU_CLONES void DotBf16x4(const float* const* x, const uint16_t* w, int64_t n, float* out) {
  DotRows<FromBf16, 4>(x, w, n, out);
}

float DotF16(const float* x, const uint16_t* w, int64_t n) {
  float lanes[kLanes] = {};
  int64_t k = 0;
  for (; k + kLanes <= n; k += kLanes) {
    for (int j = 0; j < kLanes; ++j) lanes[j] += x[k + j] * Fp16ToFloat(w[k + j]);
  }
  for (int j = 0; k < n; ++k, ++j) lanes[j] += x[k] * Fp16ToFloat(w[k]);
  float s = 0.0f;
  for (int j = 0; j < kLanes; ++j) s += lanes[j];
  return s;
}

VT_CPU_CLONES void Axpy(float a, const float* v, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] += a * v[i];
}

}  // namespace vt::kernels::cpu
