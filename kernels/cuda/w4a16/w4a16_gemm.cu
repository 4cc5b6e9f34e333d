// Marlin-style W4A16 GEMM for small batches, where the call is a stream of weight bytes.
//
// Partition: a CTA of 8 warps owns 128 output columns (16 per warp) and one K slice; the
// activations of the slice (up to 64 rows) sit in shared memory, the weights stream from
// global memory straight into registers: each lane loads 16 bytes per 64-row step (one
// contiguous 512-byte run per warp), kUnroll steps in flight, with an evict-first hint since
// every weight byte is used once per call; the first loads are issued before the CTA stages its
// activations and scales in shared memory. Each 32-bit word dequantises with lop3 and the
// bf16 magic number 128 (exponent such that one ulp is 1.0) into four bf16x2 B fragments of
// mma.m16n8k16 - two k16 steps for two 8-column tiles - after which the MMAs accumulate a
// scale group in fp32; the group's sum is multiplied by its fp32 scale and added, so the
// scale costs no bf16 rounding. K slices write fp32 partials that a second kernel adds in
// slice order (deterministic; no atomics).
//
// The stacked form (M <= 8; vt runs it at M <= 2) is in w4a16_stack.cu, the tiled form (M >= 9) in
// w4a16_tile.cu, the dequantisation for large M in w4a16_dequant.cu.
#include "kernels/cuda/w4a16/w4a16_gemm.h"

#include <cuda_bf16.h>

#include <algorithm>
#include <string>

#include "kernels/cuda/attention/mma_bf16.cuh"
#include "kernels/cuda/bf16.cuh"
#include "kernels/cuda/dependent_launch.h"
#include "kernels/cuda/per_device.h"
#include "kernels/cuda/w4a16/w4a16_common.cuh"
#include "kernels/device_alignment.h"
#include "kernels/w4a16/w4a16_shape.h"

namespace vt::kernels::cuda {
namespace {

using attention::MmaBf16;

constexpr int kWarps = 8;
constexpr int kColsPerWarp = 16;
constexpr int kColsPerCta = kWarps * kColsPerWarp;
constexpr int kMaxRowsPerCta = 64;
constexpr int kUnroll = 8;  // 16-byte weight loads in flight per lane
constexpr size_t kActivationSmemBudget = 96 * 1024;

using GemmParams = W4A16LaunchParams;

// kSwapAB (M <= 8): the weights become the MMA's A operand (16 columns as rows) and the
// activations its 8-wide B operand, so each k16 step of a warp is one MMA instead of two and
// two shared-memory loads instead of four. The tile layout serves both roles unchanged: its
// four registers are the B fragments of two 8-column tiles or, reordered, one A fragment.
template <int kMTiles, bool kSwapAB>
__global__ void __launch_bounds__(kWarps * 32) W4A16GemmKernel(GemmParams g) {
  const W4A16Problem& p = g.p;
  extern __shared__ __align__(16) uint16_t x_s[];  // [rows][pitch]
  const int pitch = g.k_slice + 8;                  // the 16-byte pad keeps A-fragment loads conflict-free
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int q = lane / 4, c = lane % 4;
  const int slice = blockIdx.y;
  const int row0 = blockIdx.z * kMaxRowsPerCta;
  const int k_begin = slice * g.k_slice;
  const int k_len = min(g.k_slice, p.k - k_begin);

  const int nb = blockIdx.x * kWarps + warp;  // this warp's 16-column block
  const bool active = nb * kColsPerWarp < p.n;
  const int iters = k_len / 64;
  const uint4* wp = reinterpret_cast<const uint4*>(p.packed) +
                    (static_cast<size_t>(nb) * (p.k / 64) + k_begin / 64) * 32 + lane;

  // The first weight loads go out before anything else: they depend on nothing.
  uint4 buf[kUnroll];
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) {
    if (active && u < iters) buf[u] = LoadStreaming(wp + u * 32);
  }
  // No kernel of a step writes weights or scales; the activations come from the kernel before.
  AwaitPrecedingGrid();

  // Activations of this slice and row block into shared memory, rows past m zero, and the
  // slice's scales, so no scale load sits between a group's MMAs and its fold.
  const int rows = kSwapAB ? 8 : kMTiles * 16;
  const int pieces_per_row = k_len / 8;
  for (int i = threadIdx.x; i < rows * pieces_per_row; i += kWarps * 32) {
    const int r = i / pieces_per_row, col = (i % pieces_per_row) * 8;
    uint4 v = make_uint4(0, 0, 0, 0);
    if (row0 + r < p.m) v = __ldg(reinterpret_cast<const uint4*>(p.x + static_cast<size_t>(row0 + r) * p.k + k_begin + col));
    *reinterpret_cast<uint4*>(x_s + r * pitch + col) = v;
  }
  uint32_t* scale_s = reinterpret_cast<uint32_t*>(x_s + rows * pitch);  // [groups][64 column pairs]
  const int first_group = k_begin / p.group_size;
  const int groups = (k_begin + k_len - 1) / p.group_size - first_group + 1;
  const int cta_cols = min(kColsPerCta, p.n - static_cast<int>(blockIdx.x) * kColsPerCta);
  for (int i = threadIdx.x; i < groups * cta_cols / 2; i += kWarps * 32) {
    const int gi = i / (cta_cols / 2), pair = i % (cta_cols / 2);
    scale_s[gi * (kColsPerCta / 2) + pair] = __ldg(reinterpret_cast<const unsigned int*>(
        p.scales + static_cast<size_t>(first_group + gi) * p.n + blockIdx.x * kColsPerCta) + pair);
  }
  __syncthreads();
  if (!active) return;

  // Accumulators: [m tile][n8 tile][4] normally; with kSwapAB one 16 (columns) x 8 (rows) tile.
  float acc[kMTiles][2][4], grp[kMTiles][2][4];
#pragma unroll
  for (int mt = 0; mt < kMTiles; ++mt) {
#pragma unroll
    for (int t = 0; t < 2; ++t) {
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[mt][t][e] = grp[mt][t][e] = 0.f;
    }
  }
  const uint16_t* scale_h = reinterpret_cast<const uint16_t*>(scale_s);

  for (int base = 0; base < iters; base += kUnroll) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int it = base + u;
      if (it < iters) {
        const uint4 cur = buf[u];
        if (it + kUnroll < iters) buf[u] = LoadStreaming(wp + (it + kUnroll) * 32);
        const uint32_t words[4] = {cur.x, cur.y, cur.z, cur.w};
#pragma unroll
        for (int s = 0; s < 4; ++s) {
          uint32_t b[4];
          DequantWord(words[s], b);
          const int kk = it * 64 + s * 16 + 2 * c;
          if constexpr (kSwapAB) {
            const uint16_t* xr = x_s + q * pitch + kk;
            MmaBf16(grp[0][0], b[0], b[2], b[1], b[3], *reinterpret_cast<const uint32_t*>(xr),
                    *reinterpret_cast<const uint32_t*>(xr + 8));
          } else {
#pragma unroll
            for (int mt = 0; mt < kMTiles; ++mt) {
              const uint16_t* xr = x_s + (mt * 16 + q) * pitch + kk;
              const uint32_t a0 = *reinterpret_cast<const uint32_t*>(xr);
              const uint32_t a1 = *reinterpret_cast<const uint32_t*>(xr + 8 * pitch);
              const uint32_t a2 = *reinterpret_cast<const uint32_t*>(xr + 8);
              const uint32_t a3 = *reinterpret_cast<const uint32_t*>(xr + 8 * pitch + 8);
              MmaBf16(grp[mt][0], a0, a1, a2, a3, b[0], b[1]);
              MmaBf16(grp[mt][1], a0, a1, a2, a3, b[2], b[3]);
            }
          }
        }
        // End of a scale group (or of the slice): fold the group's sum in with its fp32 scale.
        const int k_next = k_begin + (it + 1) * 64;
        if (k_next % p.group_size == 0 || it == iters - 1) {
          const int gi = (k_next - 1) / p.group_size - first_group;
          if constexpr (kSwapAB) {
            // Rows of the swapped tile are columns q and q + 8 of this warp.
            const uint16_t* sc = scale_h + gi * kColsPerCta + warp * 16 + q;
            const float s0 = __uint_as_float(uint32_t(sc[0]) << 16), s8 = __uint_as_float(uint32_t(sc[8]) << 16);
#pragma unroll
            for (int e = 0; e < 4; ++e) {
              acc[0][0][e] += grp[0][0][e] * (e < 2 ? s0 : s8);
              grp[0][0][e] = 0.f;
            }
          } else {
            const uint32_t* sc = scale_s + gi * (kColsPerCta / 2) + warp * 8 + c;
            float sv[2][2];
#pragma unroll
            for (int t = 0; t < 2; ++t) {
              const uint32_t pair = sc[4 * t];
              sv[t][0] = __uint_as_float(pair << 16);
              sv[t][1] = __uint_as_float(pair & 0xffff0000u);
            }
#pragma unroll
            for (int mt = 0; mt < kMTiles; ++mt) {
#pragma unroll
              for (int t = 0; t < 2; ++t) {
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                  acc[mt][t][e] += grp[mt][t][e] * sv[t][e & 1];
                  grp[mt][t][e] = 0.f;
                }
              }
            }
          }
        }
      }
    }
  }

  if constexpr (kSwapAB) {
    // acc[0][0]: e = 0, 1 -> column q, rows 2c, 2c + 1; e = 2, 3 -> column q + 8.
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int row = row0 + 2 * c + (e & 1), col = nb * 16 + q + (e < 2 ? 0 : 8);
      if (row >= p.m) continue;
      if (g.slices == 1) {
        p.y[static_cast<size_t>(row) * p.n + col] = __bfloat16_as_ushort(__float2bfloat16_rn(acc[0][0][e]));
      } else {
        g.partial[(static_cast<size_t>(slice) * p.m + row) * p.n + col] = acc[0][0][e];
      }
    }
  } else {
#pragma unroll
    for (int mt = 0; mt < kMTiles; ++mt) {
#pragma unroll
      for (int t = 0; t < 2; ++t) {
        const int col = nb * 16 + t * 8 + 2 * c;
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          const int row = row0 + mt * 16 + q + half * 8;
          if (row >= p.m) continue;
          StoreW4A16Pair(g, slice, row, col, acc[mt][t][2 * half], acc[mt][t][2 * half + 1]);
        }
      }
    }
  }
}

int MTilesFor(int m) {
  const int rows = std::min(m, kMaxRowsPerCta);
  return rows <= 16 ? 1 : rows <= 32 ? 2 : 4;
}

// Activation rows a CTA stages: 8 for the swapped form (M <= 8), else whole m16 tiles.
int StagedRows(int m) { return m <= 8 ? 8 : MTilesFor(m) * 16; }

template <int kMTiles, bool kSwapAB>
cudaError_t Launch(const GemmParams& g, cudaStream_t stream) {
  const int groups = g.k_slice / std::min(g.p.group_size, g.k_slice) + 1;
  const size_t smem =
      static_cast<size_t>(StagedRows(g.p.m)) * (g.k_slice + 8) * 2 + size_t(groups) * kColsPerCta * 2;
  const cudaError_t attr = AllowDynamicSharedMemory<W4A16GemmKernel<kMTiles, kSwapAB>, kActivationSmemBudget + 8192>();
  if (attr != cudaSuccess) return attr;
  const dim3 grid((g.p.n + kColsPerCta - 1) / kColsPerCta, g.slices, (g.p.m + kMaxRowsPerCta - 1) / kMaxRowsPerCta);
  return LaunchDependent(W4A16GemmKernel<kMTiles, kSwapAB>, grid, dim3(kWarps * 32), smem, stream, g);
}

// Adds the K-slice partial sums in slice order and writes bf16.
__global__ void ReduceSlicesKernel(const float* partial, uint16_t* y, size_t elements, int slices) {
  AwaitPrecedingGrid();
  const size_t i = (blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x) * 2;
  if (i >= elements) return;
  float2 sum = make_float2(0.f, 0.f);
  for (int s = 0; s < slices; ++s) {
    const float2 v = *reinterpret_cast<const float2*>(partial + s * elements + i);
    sum.x += v.x;
    sum.y += v.y;
  }
  *reinterpret_cast<uint32_t*>(y + i) = attention::PackBf16x2(sum.x, sum.y);
}

}  // namespace

cudaError_t ReduceW4A16Slices(const float* partial, uint16_t* y, size_t elements, int slices, cudaStream_t stream) {
  const int block = 256;
  return LaunchDependent(ReduceSlicesKernel, dim3(static_cast<unsigned>((elements / 2 + block - 1) / block)),
                         dim3(block), 0, stream, partial, y, elements, slices);
}

// No kernel of a step writes weights or scales, so every form starts its weight stream first.
bool W4A16LoadsWeightsBeforeWait(W4A16Form form) {
  switch (form) {
    case W4A16Form::kSpread:  // W4A16GemmKernel: its first kUnroll steps
    case W4A16Form::kStack:   // W4A16StackKernel: kStackUnroll steps, up to two blocks' scales
    case W4A16Form::kTile:    // W4A16TileKernel: kDepth steps
      return true;
  }
  return false;
}

// The stacked form at M <= 2: each CTA stages the activations for only 16 columns, so from M = 4 on
// that staging costs more than the form saves (docs/BENCHMARKS.md, "W4A16 at M = 1 and 2"). The tiled
// form from M = 9: split by its cost model it is faster than the spread form on all six benchmark
// shapes at M = 9, 12 and 16, and not at M = 8 (docs/BENCHMARKS.md, "W4A16 from M = 9").
W4A16Split ChooseW4A16Split(int m, int k, int n, int num_sms) {
  const W4A16Form form = m <= 2 ? W4A16Form::kStack : m <= 8 ? W4A16Form::kSpread : W4A16Form::kTile;
  return ChooseW4A16Split(m, k, n, num_sms, form);
}

W4A16Split ChooseW4A16Split(int m, int k, int n, int num_sms, W4A16Form form) {
  if (form == W4A16Form::kStack) return ChooseW4A16StackSplit(std::clamp(m, 1, 8), k, n, num_sms);
  if (form == W4A16Form::kTile) return ChooseW4A16TileSplit(m, k, n, num_sms);
  const int rows = StagedRows(m);
  // The activation slice must fit the shared-memory budget ...
  int max_slice = static_cast<int>(kActivationSmemBudget / (2 * rows)) - 8;
  max_slice = std::max(128, max_slice / 128 * 128);
  // ... and there should be about three CTAs per SM to keep enough weight bytes in flight.
  const int col_ctas = (n + kColsPerCta - 1) / kColsPerCta * ((m + kMaxRowsPerCta - 1) / kMaxRowsPerCta);
  const int wanted_slices = std::max(1, (3 * num_sms + col_ctas - 1) / col_ctas);
  int slice = (k / wanted_slices + 127) / 128 * 128;
  slice = std::clamp(slice, 128, std::min(max_slice, k));
  W4A16Split s;
  s.k_slice = slice;
  s.slices = (k + slice - 1) / slice;
  return s;
}

size_t W4A16WorkspaceBytes(int m, int n, const W4A16Split& split) {
  return split.slices > 1 ? static_cast<size_t>(split.slices) * m * n * sizeof(float) : 0;
}

Status CheckW4A16Split(const W4A16Problem& p, const W4A16Split& split) {
  VT_RETURN_IF_ERROR(CheckW4A16Shape(p.k, p.n));
  if (p.m <= 0) return InvalidArgument("W4A16: M must be positive");
  if (p.group_size != 128 && p.group_size != p.k) {
    return InvalidArgument("W4A16: group_size " + std::to_string(p.group_size) + " (128 or K)");
  }
  if (split.k_slice <= 0 || split.k_slice % 128 != 0 || split.slices != (p.k + split.k_slice - 1) / split.k_slice) {
    return InvalidArgument("W4A16: inconsistent K split");
  }
  if (split.form == W4A16Form::kStack &&
      (p.m > 8 || W4A16StackSmemBytes(p.m, split.k_slice) > kW4A16StackSmemLimit)) {
    return InvalidArgument("W4A16: the stacked form takes M <= 8 and K slices whose rows and scales fit " +
                           std::to_string(kW4A16StackSmemLimit / 1024) + " KB");
  }
  return Status::Ok();
}

Status RunW4A16Gemm(const W4A16Problem& p, const W4A16Split& split, float* workspace, cudaStream_t stream) {
  VT_RETURN_IF_ERROR(CheckW4A16Split(p, split));
  if (split.slices > 1 && workspace == nullptr) return InvalidArgument("W4A16: split-K needs a workspace");
  if (!VectorAligned(p.scales)) return InvalidArgument("W4A16: the scales must start on a 16-byte boundary");
  const GemmParams g{p, split.k_slice, split.slices, workspace};
  cudaError_t err;
  if (split.form == W4A16Form::kStack) {
    err = LaunchW4A16Stack(g, stream);
  } else if (split.form == W4A16Form::kTile) {
    err = LaunchW4A16Tile(g, stream);
  } else if (p.m <= 8) {
    err = Launch<1, true>(g, stream);
  } else {
    switch (MTilesFor(p.m)) {
      case 1: err = Launch<1, false>(g, stream); break;
      case 2: err = Launch<2, false>(g, stream); break;
      default: err = Launch<4, false>(g, stream); break;
    }
  }
  if (err == cudaSuccess && split.slices > 1) {
    err = ReduceW4A16Slices(workspace, p.y, static_cast<size_t>(p.m) * p.n, split.slices, stream);
  }
  if (err != cudaSuccess) return Internal(std::string("W4A16 GEMM: ") + cudaGetErrorString(err));
  return Status::Ok();
}

}  // namespace vt::kernels::cuda
