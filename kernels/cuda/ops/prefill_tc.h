// Paged causal prefill attention on tensor cores: the queries of a step (each token of a prefill
// chunk, at its position) against its sequence's cached keys, as FlashAttention-2 computes it.
// One warp serves 16 consecutive tokens of one query head: Q.K^T and P.V run as bf16 m16n8k16
// MMAs with fp32 accumulation and an online softmax per row, so each 16-key block of K and V is
// read once per 16 queries instead of once per query as the decode-query path does. A tile that
// spans several sequences (chunk boundaries, decode tokens in a mixed step) takes one pass per
// sequence with the other rows masked, so one-token sequences (decode tokens in a mixed step) are
// better left to the decode arms: the CUDA runner sends a step's leading one-token sequences there.
// Performance still to do: K/V tiles through shared memory shared by several warps (ldmatrix), Q
// kept in registers, one page lookup per 16-key block.
//
// The opt-in arm until its gate passes on a GPU: VT_ATTN_PREFILL=tc in the CUDA runner.
#pragma once

#include <cuda_runtime.h>

#include "engine/core/status.h"
#include "kernels/cuda/ops/prefill_attention.h"

namespace vt::kernels::cuda {

// head_dim 64, 128 or 256. Launch-only; needs no workspace.
Status RunPrefillAttentionTensorCore(const PrefillAttentionParams& p, cudaStream_t stream);

}  // namespace vt::kernels::cuda
