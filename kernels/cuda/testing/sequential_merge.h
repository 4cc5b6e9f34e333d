// For tests only (never linked into vt). The split-KV merge as a plain loop over the chunks, one
// thread per output element, each load waited for before the next add: what the merge kernel
// (kernels/cuda/attention/decode_merge.cu) computes, bit for bit, however it schedules its loads.
#pragma once

#include <cuda_runtime.h>

#include "kernels/cuda/attention/decode_params.h"

namespace vt::testing {

// Merges p.partial_out / p.partial_lse into p.out for every (request, query head) of `p`.
cudaError_t LaunchSequentialMerge(const kernels::cuda::PagedDecodeParams& p, cudaStream_t stream);

}  // namespace vt::testing
