// bf16 linear layers for batched decode steps: y[M, N] = x[M, K] . W[N, K]^T (Hugging Face's
// nn.Linear layout) for 9 <= M <= 64 rows, fp32 accumulation, one bf16 rounding. At these M a
// decode step's linear layer still reads every weight once and does little arithmetic per byte;
// on an H200 at M = 64 cuBLAS streams the small-N layers of a 1.7B model at 1.4-3.3 TB/s of the
// ~4.2 TB/s copy bandwidth (issue #17). This kernel streams W through a 4-6 stage cp.async pipeline
// in 128-row tiles; wgmma multiplies them (the m64 side) by all M rows of x (the N side) straight from
// shared memory, and K is split over a thread-block cluster when N alone leaves SMs idle; the split
// partial sums meet through distributed shared memory, so no second kernel and no workspace.
// Measured, it is still slower than cuBLAS at most shapes (0.71-0.97x at M = 64, 0.82-1.08x at
// M = 16; docs/BENCHMARKS.md "Batch-decode GEMM"), so the engine runs it only with
// VT_DENSE_GEMM_MID=batch.
//
// The split count depends on N, K and the device's SM count only, and every output element's sum
// runs in the same order whatever M is, so a row gets the same bits at every M from 9 to 64 (batch
// invariance across graph buckets). wgmma and clusters need sm_90 (built as sm_90a): elsewhere
// BatchLinearSupports says no.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "base/status.h"

namespace vt::kernels::cuda {

inline constexpr int kBatchGemmMinRows = 9;
inline constexpr int kBatchGemmMaxRows = 64;

// Whether BatchLinear takes this shape on the current device: 9 <= m <= 64, n >= 1, k a positive
// multiple of 64, x, W and y non-null and 16-byte aligned, y overlapping neither x nor W (not
// checked), an sm_90 GPU (H100, H200).
bool BatchLinearSupports(const uint16_t* x, const uint16_t* weight, int m, int n, int k, const uint16_t* y);

// `splits` 0 runs BatchLinearSplits' count; 1, 2, 4 or 8 force one (for `vt bench gemm --splits`).
Status BatchLinear(const uint16_t* x, const uint16_t* weight, int m, int n, int k, uint16_t* y,
                   cudaStream_t stream, int splits = 0);

// The K splits BatchLinear runs for an N x K weight on a GPU with `sms` SMs (1, 2, 4 or 8).
int BatchLinearSplits(int n, int k, int sms);

}  // namespace vt::kernels::cuda
