// A decode step's MLP in one kernel: act = SiLU(x . Wgate^T) * (x . Wup^T), then y = act . Wdown^T,
// for 1-8 rows of bf16 weights in HF's layout (gate_up: the gate rows, then the up rows).
//
// Kernel per op, the MLP is three launches (gate/up, SiLU·mul, down), and at a small model's decode
// step each boundary drains the GPU before the next kernel's weights start streaming (issue #17,
// docs/bench/persistent-layer-plan/PLAN.md). Here one wave of CTAs stays resident: each takes pairs of
// gate and up tiles of 8 columns and writes SiLU·mul of them itself, issues its first down-projection
// weights (they depend on nothing), meets the others at a grid barrier and runs the down tiles. The
// tiles are the skinny GEMM's own device code (skinny_tile.cuh) with the K split of the form
// SkinnyLinear picks for each N, so the output has the kernel-per-op path's bits.
// Measured 6-11% slower end to end than the three kernels (H100, docs/BENCHMARKS.md "The decode MLP as
// one resident kernel"): the engine runs it only where VT_DECODE_MLP=fused asks.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "base/status.h"

namespace vt::kernels::cuda {

struct DecodeMlpParams {
  const uint16_t* x = nullptr;        // [m, hidden]: the post-attention RMSNorm's output
  const uint16_t* gate_up = nullptr;  // [2 * inter, hidden]
  const uint16_t* down = nullptr;     // [hidden, inter]
  int m = 0, hidden = 0, inter = 0;
  uint16_t* act = nullptr;            // [m, inter] scratch: SiLU(gate) * up, as SiluMul writes it
  uint16_t* y = nullptr;              // [m, hidden]
  // kDecodeMlpBarrierBytes of device memory, zeroed once before the first call; calls on one stream
  // may share it, calls that can run at once may not.
  unsigned* barrier = nullptr;
};

inline constexpr size_t kDecodeMlpBarrierBytes = 8;

// Whether RunDecodeMlp takes these operands: 1 <= m <= 8, hidden and inter multiples of 32, every
// pointer set and 16-byte aligned.
bool DecodeMlpSupports(const DecodeMlpParams& p);

Status RunDecodeMlp(const DecodeMlpParams& p, cudaStream_t stream);

}  // namespace vt::kernels::cuda
