// y = x · Wᵀ (+ bias): the Linear layer of every projection and the lm_head.
#pragma once

#include <cstdint>

#include "kernels/cpu/dtype.h"
#include "kernels/cpu/thread_pool.h"

namespace vt::kernels::cpu {

// x: float [m, w.cols]; y: float [m, w.rows]; bias: float [w.rows] or null.
// Threads split the output features; each weight tile is reused for all m
// rows while it is in cache, so prefill reads the weights once.
void MatMul(ThreadPool& pool, const float* x, int64_t m, const WeightMatrix& w, const float* bias, float* y);

}  // namespace vt::kernels::cpu
