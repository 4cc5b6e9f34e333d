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

// out[i] += a * v[i]
void Axpy(float a, const float* v, float* out, int64_t n);

}  // namespace vt::kernels::cpu
