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
  const uint16_t* scales = nullptr;  // [k / group_size, n] bf16 bits, 16-byte aligned
  uint16_t* y = nullptr;             // [m, n] bf16 bits
  int m = 0, k = 0, n = 0;
  int group_size = 128;              // 128, or k for per-channel scales
};

// How a CTA's warps share the weights. kSpread: each of eight warps streams its own 16-column
// block over the CTA's K slice (128 columns per CTA; any M). kStack (M <= 8): all eight warps on
// one 16-column block at a time, interleaved over the slice's 64-row steps, so each CTA round reads
// 4 KB of contiguous weights and the warps' sums meet in shared memory. kTile (any M; vt runs it from M = 9
// up to kW4A16DequantMinRows): four warps of 32 columns each share up to 64 activation rows staged
// through shared memory and read with ldmatrix, the weights scaled in bf16 before the MMAs
// (w4a16_tile.cu).
enum class W4A16Form { kSpread, kStack, kTile };

// How the K dimension is split across CTAs for a shape. A function of (m, k, n), the form and the
// device only, so a shape always reduces in the same order: results are bitwise reproducible run
// to run.
struct W4A16Split {
  int k_slice = 0;  // multiple of 128
  int slices = 1;
  W4A16Form form = W4A16Form::kSpread;
};
// The form vt runs for M (kStack at M <= 2, kSpread to 8, kTile from 9), split for the shape.
W4A16Split ChooseW4A16Split(int m, int k, int n, int num_sms);
// A given form (kStack only at M <= 8), for A/B runs of the forms.
W4A16Split ChooseW4A16Split(int m, int k, int n, int num_sms, W4A16Form form);

// Whether the form's GEMM kernel issues its first weight loads before its dependent-launch wait
// (dependent_launch.h), so that a kernel before it may let it launch early. The split-K reduction
// after it loads nothing before its wait.
bool W4A16LoadsWeightsBeforeWait(W4A16Form form);

// fp32 workspace bytes for the split-K partial sums (0 when unsplit).
size_t W4A16WorkspaceBytes(int m, int n, const W4A16Split& split);

// Whether RunW4A16Gemm takes this problem's shape and group size with this split (host only; the
// pointers are not looked at). Errors name the property.
Status CheckW4A16Split(const W4A16Problem& problem, const W4A16Split& split);

// Launch-only (no allocation, no synchronisation): safe inside CUDA graph capture. Scales that are not
// 16-byte aligned are an error (the stacked form copies them 16 bytes at a time).
Status RunW4A16Gemm(const W4A16Problem& problem, const W4A16Split& split, float* workspace, cudaStream_t stream);

// From this many rows vt dequantises the weights into a bf16 scratch and runs the bf16 GEMM on it
// (prefill chunks): there one pass over the weights costs less than the int4 forms' MMA-bound time
// (docs/BENCHMARKS.md, "W4A16 from M = 9").
constexpr int kW4A16DequantMinRows = 192;

// Writes the weights as bf16 [n, k] (nn.Linear's layout), each (q - 8) * scale rounded to bf16 once:
// the values the tiled form multiplies. Launch-only; `dense` holds k * n bf16; `packed` and `dense`
// are 16-byte aligned (the kernel moves 16-byte pieces), else an error.
Status DequantizeW4A16(const uint32_t* packed, const uint16_t* scales, int k, int n, int group_size, uint16_t* dense,
                       cudaStream_t stream);

}  // namespace vt::kernels::cuda
