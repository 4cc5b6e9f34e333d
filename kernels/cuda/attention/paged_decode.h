// Paged decode attention on the GPU: the public entry point of the attention arms.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "base/status.h"
#include "kernels/cuda/attention/decode_params.h"
#include "kernels/cuda/attention/decode_plan.h"

namespace vt::kernels::cuda {

// Bytes of split-KV workspace (partial outputs + lse) a plan needs; 0 when unsplit.
size_t DecodeWorkspaceBytes(const DecodeShape& shape, const DecodePlan& plan);

// Runs the planned arm. `params` carries the tensors and the shape; the plan's chunking is
// applied to it here. `workspace` must hold DecodeWorkspaceBytes() bytes when split.
// Launch-only: no allocation, no synchronisation, so it can be captured in a CUDA graph.
Status RunPagedDecode(PagedDecodeParams params, const DecodePlan& plan, void* workspace, cudaStream_t stream);

// Whether the solo arm runs its own kernel for `batch` requests with `group` query heads a KV head on
// the current device. Where a solo CTA's shared memory does not fit, it runs the gqa kernel (the same
// bits), so a test comparing the two learns nothing there: tests ask this first.
bool SoloArmRunsItself(int batch, int group);

}  // namespace vt::kernels::cuda
