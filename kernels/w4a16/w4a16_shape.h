// The shapes the W4A16 GEMM runs: K a multiple of 128 (one scale group), N of 64.
// Kept apart from gptq_layout.h so CUDA sources (C++17) can include it.
#pragma once

#include "base/status.h"

namespace vt::kernels {

// Why a shape cannot run on the W4A16 GEMM; ok otherwise.
Status CheckW4A16Shape(int k, int n);

}  // namespace vt::kernels
