// The int4 weights back to bf16, for batches large enough that a bf16 GEMM on the dequantised
// weights beats every int4 form: at M in the hundreds the int4 forms are bound by their MMAs and
// dequantisation (one dequantisation per weight per 64 rows), while a dequantise pass costs one
// read of the int4 weights and one write of the bf16 ones, after which cuBLAS runs at its own speed.
//
// A CTA takes one 16-column block over up to eight 64-row steps: each thread dequantises one
// 16-byte piece of the tile layout (kernels/w4a16/gptq_layout.h; lane L, q = L / 4, c = L % 4, holds
// columns nb*16 + q and + 8, rows kb*64 + 16s + {2c, 2c+1, 2c+8, 2c+9} for s = 0..3) into shared
// memory, and the block's 16 rows of [n, k] then leave as 16-byte stores of whole row segments
// (written straight from the pieces, the stores were 4 bytes wide and ran at a third of the copy
// bandwidth). Each weight is (q - 8) times its group's scale rounded to bf16 once: exactly the
// value the tiled form multiplies.
#include <cuda_bf16.h>

#include <cstdint>
#include <string>

#include "kernels/cuda/w4a16/w4a16_common.cuh"
#include "kernels/cuda/w4a16/w4a16_gemm.h"
#include "kernels/w4a16/w4a16_shape.h"

namespace vt::kernels::cuda {
namespace {

constexpr int kStepsPerCta = 8;
constexpr int kThreads = kStepsPerCta * 32;
constexpr int kSpan = kStepsPerCta * 64;  // rows of K a CTA dequantises

__global__ void __launch_bounds__(kThreads) DequantizeW4A16Kernel(const uint4* packed, const uint16_t* scales, int k,
                                                                  int n, int group_size, uint16_t* dense) {
  // [column][row pair]; the 4-word pad puts the eight columns one store writes in different banks.
  __shared__ __align__(16) uint32_t tile[16][kSpan / 2 + 4];
  const int nb = blockIdx.x, kb0 = blockIdx.y * kStepsPerCta;
  const int steps = k / 64, span_steps = min(kStepsPerCta, steps - kb0);
  const int lane = threadIdx.x % 32, local = threadIdx.x / 32;
  if (local < span_steps) {
    const int kb = kb0 + local, q = lane / 4, c = lane % 4;
    const size_t scale_row = static_cast<size_t>(kb * 64 / group_size) * n + nb * 16 + q;
    // Each column's scale in both halves.
    const uint32_t s_lo = uint32_t(scales[scale_row]) * 0x10001u, s_hi = uint32_t(scales[scale_row + 8]) * 0x10001u;
    const uint4 words = LoadStreaming(packed + (static_cast<size_t>(nb) * steps + kb) * 32 + lane);
    uint32_t* lo = &tile[q][local * 32 + c];  // row pair (16s + 2c) / 2 of this step
    uint32_t* hi = &tile[q + 8][local * 32 + c];
#pragma unroll
    for (int s = 0; s < 4; ++s) {
      const uint32_t word = s == 0 ? words.x : s == 1 ? words.y : s == 2 ? words.z : words.w;
      uint32_t r[4];
      DequantWord(word, r);
      lo[8 * s] = MulBf16x2(r[0], s_lo);      // rows 16s + 2c, + 1
      lo[8 * s + 4] = MulBf16x2(r[1], s_lo);  // rows 16s + 2c + 8, + 9
      hi[8 * s] = MulBf16x2(r[2], s_hi);
      hi[8 * s + 4] = MulBf16x2(r[3], s_hi);
    }
  }
  __syncthreads();
  // 16 columns x span_steps * 8 chunks of 16 bytes (eight rows of K each).
  const int chunks_per_column = span_steps * 8;
  for (int i = threadIdx.x; i < 16 * chunks_per_column; i += kThreads) {
    const int col = i / chunks_per_column, chunk = i % chunks_per_column;
    const uint4 v = *reinterpret_cast<const uint4*>(&tile[col][chunk * 4]);
    *reinterpret_cast<uint4*>(dense + static_cast<size_t>(nb * 16 + col) * k + kb0 * 64 + chunk * 8) = v;
  }
}

}  // namespace

Status DequantizeW4A16(const uint32_t* packed, const uint16_t* scales, int k, int n, int group_size, uint16_t* dense,
                       cudaStream_t stream) {
  VT_RETURN_IF_ERROR(CheckW4A16Shape(k, n));
  if (group_size != 128 && group_size != k) {
    return InvalidArgument("W4A16 dequantise: group_size " + std::to_string(group_size) + " (128 or K)");
  }
  if (reinterpret_cast<uintptr_t>(packed) % 16 != 0 || reinterpret_cast<uintptr_t>(dense) % 16 != 0) {
    return InvalidArgument("W4A16 dequantise: the packed weights and the output must be 16-byte aligned");
  }
  const dim3 grid(n / 16, (k / 64 + kStepsPerCta - 1) / kStepsPerCta);
  DequantizeW4A16Kernel<<<grid, kThreads, 0, stream>>>(reinterpret_cast<const uint4*>(packed), scales, k, n,
                                                       group_size, dense);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return Internal(std::string("W4A16 dequantise: ") + cudaGetErrorString(err));
  return Status::Ok();
}

}  // namespace vt::kernels::cuda
