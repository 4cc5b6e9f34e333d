// W4A16 GEMM on the GPU: y[M, N] = x[M, K] (bf16) . W[K, N] (int4, bf16 group scales),
// fp32 accumulation, bf16 output. W is in vt's tile layout (kernels/w4a16/gptq_layout.h).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "base/status.h"

namespace vt::kernels::cuda {

struct W4A16Problem {
  const uint16_t* x = nullptr;       // [m, k] bf16 bits, row-major
  const uint32_t* packed = nullptr;  // k * n / 8 words, tile layout
  const uint16_t* scales = nullptr;  // [k / group_size, n] bf16 bits
  uint16_t* y = nullptr;             // [m, n] bf16 bits
  int m = 0, k = 0, n = 0;
  int group_size = 128;              // 128, or k for per-channel scales
};

// How the K dimension is split across CTAs for a shape. A function of (m, k, n) and the
// device only, so a shape always reduces in the same order: results are bitwise
// reproducible run to run.
struct W4A16Split {
  int k_slice = 0;  // multiple of 128
  int slices = 1;
};
W4A16Split ChooseW4A16Split(int m, int k, int n, int num_sms);

// fp32 workspace bytes for the split-K partial sums (0 when unsplit).
size_t W4A16WorkspaceBytes(int m, int n, const W4A16Split& split);

// Launch-only (no allocation, no synchronisation): safe inside CUDA graph capture.
Status RunW4A16Gemm(const W4A16Problem& problem, const W4A16Split& split, float* workspace, cudaStream_t stream);

}  // namespace vt::kernels::cuda
