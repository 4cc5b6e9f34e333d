// Launchers of the decode-attention arms (internal to kernels/cuda/attention).
#pragma once

#include <cuda_runtime.h>

#include "kernels/cuda/attention/decode_params.h"

namespace vt::kernels::cuda::attention {

cudaError_t LaunchDecodeBlock(const PagedDecodeParams& p, cudaStream_t stream);
cudaError_t LaunchDecodeWarp(const PagedDecodeParams& p, cudaStream_t stream);
cudaError_t LaunchDecodeWarpTwoRows(const PagedDecodeParams& p, cudaStream_t stream);
cudaError_t LaunchDecodeGqa(const PagedDecodeParams& p, cudaStream_t stream);
cudaError_t LaunchDecodePersistent(const PagedDecodeParams& p, cudaStream_t stream);
cudaError_t LaunchDecodeSolo(const PagedDecodeParams& p, cudaStream_t stream);
// Whether LaunchDecodeSolo runs the solo kernel for `batch` requests of `group` query heads a KV head
// on the current device, rather than the gqa kernel (where a solo CTA's shared memory does not fit).
bool SoloRunsItself(int batch, int group);
cudaError_t LaunchMergeChunks(const PagedDecodeParams& p, cudaStream_t stream);

}  // namespace vt::kernels::cuda::attention
