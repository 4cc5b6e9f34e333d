// Paged causal prefill attention on tensor cores: the queries of a step (each token of a prefill
// chunk, at its position) against its sequence's cached keys, as FlashAttention-2 computes it.
// A CTA has four warps, each 16 consecutive tokens of one query head: the query heads of one KV
// head (up to four) times further 16-token tiles. The CTA's warps share each K/V tile of that KV
// head (64 keys at head_dim <= 128, 32 at 256) through shared memory, double buffered with
// cp.async; each warp keeps its queries in registers. Q.K^T and P.V run as bf16 m16n8k16 MMAs
// with fp32 accumulation and an online softmax per row, P rounded to bf16 once (on sm_90 at head_dim
// 128, the same CTAs and tiles run on warpgroup MMAs: prefill_wgmma.h). A CTA that spans
// several sequences (chunk boundaries, decode tokens in a mixed step) takes one pass per sequence
// with the other rows masked, so one-token sequences (decode tokens in a mixed step) are better
// left to the decode arms: the CUDA runner sends a step's leading one-token sequences there.
//
// Split-KV: a call of at most kPrefillSplitMaxTokens tokens at contexts past kPrefillSplitKeys
// (a prompt chunk beside running decodes) would put few CTAs on long serial key loops; it splits
// every row's keys into fixed kPrefillSplitKeys ranges instead and merges them as the decode arms
// do. The ranges depend on nothing but the key positions, and a row whose keys fit one range gets
// bit for bit what the unsplit call gives, so short prompts stay batch invariant.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "base/status.h"
#include "kernels/cuda/ops/prefill_attention.h"

namespace vt::kernels::cuda {

inline constexpr int kPrefillSplitKeys = 1024;
inline constexpr int kPrefillSplitMaxTokens = 512;

// Workspace bytes for the split partials of any call of up to p.tokens tokens at contexts up to
// p.max_context (0 when such calls never split).
size_t PrefillTcWorkspaceBytes(const PrefillAttentionParams& p);

// Which MMAs the kernel issues. kAuto: Hopper's warpgroup MMAs where the device and head_dim allow
// (prefill_wgmma.h: sm_90, head_dim 128), else warp MMAs; kWarp: warp MMAs everywhere
// (VT_ATTN_PREFILL_MMA=warp, for A/B). The choice depends on the device and head_dim only; the two
// kernels' bits differ, but with either a row's bits depend on its own keys alone (see Split-KV above).
enum class PrefillMma { kAuto, kWarp };

// Whether a call of this head_dim runs on warpgroup MMAs on the current device under `mma`.
bool PrefillUsesWarpgroupMmas(PrefillMma mma, int head_dim);

// head_dim 64, 128 or 256. Splits only when the call qualifies and `workspace_bytes` holds its
// partials; otherwise (a null workspace included) it runs unsplit.
Status RunPrefillAttentionTensorCore(const PrefillAttentionParams& p, void* workspace, size_t workspace_bytes,
                                     PrefillMma mma, cudaStream_t stream);

}  // namespace vt::kernels::cuda
