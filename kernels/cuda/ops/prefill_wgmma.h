// The tensor-core prefill attention on Hopper's warpgroup MMAs (wgmma), head_dim 128: the CTA shape,
// tiles, masks, online softmax, splits and outputs of prefill_tc.h, with Q.K^T and P.V issued by the
// CTA's four warps as one warpgroup. The queries and P stay in registers (the A operands); K and V
// tiles of 64 keys are read by the tensor cores straight from shared memory in the 128-byte swizzle
// (K as a K-major B, V as an N-major B), so no ldmatrix runs. Built for sm_90a only.
#pragma once

#include <cuda_runtime.h>

#include "kernels/cuda/ops/prefill_attention.h"
#include "kernels/cuda/ops/prefill_tc_shape.h"

namespace vt::kernels::cuda {

// Whether the current device runs the wgmma kernel for this head_dim (sm_90 and head_dim 128).
bool PrefillWgmmaSupported(int head_dim);

// The kernel on the current device (which must be one PrefillWgmmaSupported accepts); a head_dim
// other than 128 is cudaErrorInvalidValue.
cudaError_t LaunchPrefillWgmma(const PrefillAttentionParams& p, const prefill::SplitOutput& split,
                               cudaStream_t stream);

}  // namespace vt::kernels::cuda
