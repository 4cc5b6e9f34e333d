// Dot products of a float32 activation row with a stored weight row. Every
// caller (decode, prefill, attention) goes through these, and each sums in the
// same fixed lane order, so a row's result never depends on what else is in
// the batch: that is what makes batched and unbatched greedy output identical.
#pragma once

#include <cstdint>

namespace vt::kernels::cpu {

float DotF32(const float* x, const float* w, int64_t n);
float DotBf16(const float* x, const uint16_t* w, int64_t n);
float DotF16(const float* x, const uint16_t* w, int64_t n);

// out[r] = Dot(x[r], w) for four activation rows sharing one weight row: the
// weight is loaded and widened once for all four. Each result is bitwise what
// the single-row function returns.
void DotF32x4(const float* const* x, const float* w, int64_t n, float* out);
void DotBf16x4(const float* const* x, const uint16_t* w, int64_t n, float* out);

// out[i] += a * v[i]
void Axpy(float a, const float* v, float* out, int64_t n);

}  // namespace vt::kernels::cpu
