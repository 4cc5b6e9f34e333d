#include "kernels/cuda/ops/skinny_gemm.h"

#include <algorithm>
#include <string>

#include "kernels/cuda/attention/mma_bf16.cuh"
#include "kernels/cuda/bf16.cuh"
#include "kernels/cuda/dependent_launch.h"
#include "kernels/cuda/ops/rms_norm.cuh"
#include "kernels/cuda/ops/silu_times.cuh"
#include "kernels/device_alignment.h"

namespace vt::kernels::cuda {
namespace {

using attention::MmaBf16;

constexpr int kWarps = 8;
constexpr int kTileCols = 8;   // output columns per CTA: the MMA's 8 B columns
constexpr int kChunk = 32;     // K per warp step: 4 lanes x 8 values, two MMAs
constexpr int kUnroll = 8;     // chunks a warp has in flight (8 KiB of weights)
static_assert(kTileCols == 2 * kGateUpBlock, "a CTA's columns are one interleaved gate block and its up block");

// What a CTA does with its [M, 8] sums.
enum class Epilogue {
  kStore,     // y[M, N] as bf16
  kSiluMul,   // W is an interleaved gate/up weight: y[M, N / 2] = silu(gate) * up
};

struct alignas(16) Bf16x8 {
  uint32_t pair[4];  // eight bf16, two per word, the lower index in the low half
};

__device__ __forceinline__ Bf16x8 LoadStreaming(const uint16_t* p) {  // weights: read once a step
  const uint4 v = __ldcs(reinterpret_cast<const uint4*>(p));
  return Bf16x8{{v.x, v.y, v.z, v.w}};
}

__device__ __forceinline__ Bf16x8 Load(const uint16_t* p) {
  const uint4 v = *reinterpret_cast<const uint4*>(p);
  return Bf16x8{{v.x, v.y, v.z, v.w}};
}

struct alignas(16) Bf16Values8 {
  uint16_t v[kNormValuesPerThread];
};

// The fused prologue (SkinnyNormedInput): every CTA builds the GEMM's M input rows in shared memory
// itself, residual + delta (CTA 0 also stores it to residual_out) normalised with AddRmsNorm's exact
// order of operations: virtual thread t of the row kernel's k / 8 sums the squares of its eight
// values, each virtual warp sums its lanes with the same shuffles, and the virtual warps' sums are
// added in order. So the GEMM sees the bits AddRmsNorm would have written.
__device__ void NormRows(const SkinnyNormedInput& in, int m, int k, uint16_t* rows) {
  __shared__ float warp_sums[kSkinnyMaxRows][32];
  __shared__ float inv_rms[kSkinnyMaxRows];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int virtual_threads = k / kNormValuesPerThread, virtual_warps = (virtual_threads + 31) / 32;
  const bool store = blockIdx.x == 0;
  for (int vw = warp; vw < virtual_warps; vw += kWarps) {  // the lanes of a warp take the same trips
    const int vt = vw * 32 + lane;
    for (int r = 0; r < m; ++r) {
      float sum_sq = 0.f;
      if (vt < virtual_threads) {
        const int64_t at = static_cast<int64_t>(r) * k + vt * kNormValuesPerThread;
        Bf16Values8 sum = *reinterpret_cast<const Bf16Values8*>(in.residual + at);
        if (in.delta != nullptr) {
          const Bf16Values8 d = *reinterpret_cast<const Bf16Values8*>(in.delta + at);
          for (int i = 0; i < kNormValuesPerThread; ++i) AddRounded(sum.v[i], d.v[i], &sum.v[i]);
        }
        if (store) *reinterpret_cast<Bf16Values8*>(in.residual_out + at) = sum;
        *reinterpret_cast<Bf16Values8*>(rows + at) = sum;
        float v[kNormValuesPerThread];
        for (int i = 0; i < kNormValuesPerThread; ++i) {
          v[i] = Bf16BitsToFloat(sum.v[i]);
          sum_sq += v[i] * v[i];
        }
      }
      sum_sq = WarpSum(sum_sq);
      if (lane == 0) warp_sums[r][vw] = sum_sq;
    }
  }
  __syncthreads();
  if (threadIdx.x < m) {
    float total = 0.f;
    for (int w = 0; w < virtual_warps; ++w) total += warp_sums[threadIdx.x][w];
    inv_rms[threadIdx.x] = rsqrtf(total / k + in.eps);
  }
  __syncthreads();
  for (int i = threadIdx.x; i < m * virtual_threads; i += blockDim.x) {
    const int r = i / virtual_threads, vt = i % virtual_threads;
    auto* values = reinterpret_cast<Bf16Values8*>(rows + static_cast<int64_t>(r) * k + vt * kNormValuesPerThread);
    const Bf16Values8 w = *reinterpret_cast<const Bf16Values8*>(in.weight + vt * kNormValuesPerThread);
    Bf16Values8 out = *values;
    for (int j = 0; j < kNormValuesPerThread; ++j) out.v[j] = NormScale(Bf16BitsToFloat(out.v[j]), inv_rms[r], w.v[j]);
    *values = out;
  }
  __syncthreads();
}

// One CTA per 8 output columns; warp w takes a contiguous range of K chunks, so its unrolled
// loads stream 512 contiguous bytes of each weight row. Lane 4q + c loads eight consecutive K values
// (physical offset 8c) of weight row q (the MMA's B column q) and of input row q (A row q; A rows
// 8-15 are zero). The MMA's logical K order is a permutation of the physical one, the same for A
// and B, so the dot products are unchanged: the first MMA takes values 0-3 of each lane (pairs at
// logical 2c and 2c + 8), the second values 4-7. Rows q >= M multiply zeros. Partial sums meet in
// shared memory in warp order; both epilogues round each sum to bf16 the same way, so the fused
// SiLU·mul gives the bits of the GEMM followed by SiluMul. kNormed: x is built by NormRows from
// `norm` in dynamic shared memory (m * k bf16) instead of read from memory.
template <Epilogue kEpilogue, bool kNormed>
__global__ void __launch_bounds__(kWarps * 32) SkinnyGemmKernel(const uint16_t* __restrict__ x,
                                                                const uint16_t* __restrict__ weight, int m, int n,
                                                                int k, uint16_t* __restrict__ y,
                                                                SkinnyNormedInput norm) {
  AwaitPrecedingGrid();
  __shared__ float partial[kWarps][kSkinnyMaxRows][kTileCols];
  if constexpr (kNormed) {
    extern __shared__ __align__(16) uint16_t normed_rows[];
    NormRows(norm, m, k, normed_rows);
    x = normed_rows;
  }
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, q = lane / 4, c = lane % 4;
  const int col0 = blockIdx.x * kTileCols;
  // Columns past N read the last real row and are not written.
  const uint16_t* w_row = weight + static_cast<int64_t>(min(col0 + q, n - 1)) * k + 8 * c;
  const bool has_row = q < m;
  const uint16_t* x_row = x + static_cast<int64_t>(has_row ? q : 0) * k + 8 * c;
  float acc[4] = {0.f, 0.f, 0.f, 0.f};
  const int chunks = k / kChunk;
  const int per_warp = (chunks + kWarps - 1) / kWarps;
  const int first = warp * per_warp, last = min(first + per_warp, chunks);
  for (int base = first; base < last; base += kUnroll) {
    Bf16x8 b[kUnroll], a[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      if (base + u < last) b[u] = LoadStreaming(w_row + (base + u) * kChunk);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      a[u] = Bf16x8{};
      if (base + u < last && has_row) a[u] = Load(x_row + (base + u) * kChunk);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      if (base + u < last) {
        MmaBf16(acc, a[u].pair[0], 0u, a[u].pair[1], 0u, b[u].pair[0], b[u].pair[1]);
        MmaBf16(acc, a[u].pair[2], 0u, a[u].pair[3], 0u, b[u].pair[2], b[u].pair[3]);
      }
    }
  }
  // acc: c0, c1 = (input row q, columns 2c, 2c + 1); c2, c3 belong to the zero rows 8-15.
  partial[warp][q][2 * c] = acc[0];
  partial[warp][q][2 * c + 1] = acc[1];
  __syncthreads();
  if constexpr (kEpilogue == Epilogue::kSiluMul) {
    if (threadIdx.x < kSkinnyMaxRows * kGateUpBlock) {
      const int row = threadIdx.x / kGateUpBlock, i = threadIdx.x % kGateUpBlock;
      if (row < m) {
        float gate = 0.f, up = 0.f;
        for (int w = 0; w < kWarps; ++w) gate += partial[w][row][i], up += partial[w][row][kGateUpBlock + i];
        const int inter = n / 2;
        y[static_cast<int64_t>(row) * inter + blockIdx.x * kGateUpBlock + i] =
            SiluTimes(FloatToBf16Bits(gate), FloatToBf16Bits(up));
      }
    }
    return;
  }
  if (threadIdx.x < kSkinnyMaxRows * kTileCols) {
    const int row = threadIdx.x / kTileCols, col = threadIdx.x % kTileCols;
    if (row < m && col0 + col < n) {
      float s = 0.f;
      for (int w = 0; w < kWarps; ++w) s += partial[w][row][col];
      y[static_cast<int64_t>(row) * n + col0 + col] = FloatToBf16Bits(s);
    }
  }
}

// The normed kernels' dynamic shared memory (their M input rows) may pass the 48 KiB default: each
// kernel is raised once to what the largest M and K take or, where the device offers less (101 KiB a
// block on sm_86/89), to what it offers; SkinnyNormSupports refuses rows that do not fit.
struct NormedSmem {
  size_t limit = 0;  // dynamic bytes a launch may take
  cudaError_t status = cudaSuccess;
};

template <Epilogue kEpilogue>
NormedSmem NormedSharedMemoryOf() {
  NormedSmem s;
  int device = 0, optin = 0;
  cudaFuncAttributes attributes{};
  s.status = cudaGetDevice(&device);
  if (s.status == cudaSuccess) s.status = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  if (s.status == cudaSuccess) s.status = cudaFuncGetAttributes(&attributes, SkinnyGemmKernel<kEpilogue, true>);
  if (s.status != cudaSuccess) return s;
  const size_t offered = size_t(optin) > attributes.sharedSizeBytes ? size_t(optin) - attributes.sharedSizeBytes : 0;
  s.limit = std::min(offered, size_t(kSkinnyMaxRows) * kSkinnyNormMaxK * 2);
  s.status = cudaFuncSetAttribute(SkinnyGemmKernel<kEpilogue, true>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  int(s.limit));
  if (s.status != cudaSuccess) s.limit = 0;
  return s;
}

template <Epilogue kEpilogue>
const NormedSmem& NormedSharedMemory() {
  static const NormedSmem smem = NormedSharedMemoryOf<kEpilogue>();
  return smem;
}

template <Epilogue kEpilogue>
Status LaunchNormed(const SkinnyNormedInput& in, const uint16_t* weight, int m, int n, int k, uint16_t* y,
                    unsigned ctas, const char* what, cudaStream_t stream) {
  if (!SkinnyNormSupports(in, weight, m, k, y) || n <= 0) {
    return InvalidArgument(std::string(what) + ": " + std::to_string(m) + "x" + std::to_string(n) + "x" +
                           std::to_string(k) + " needs 1 <= M <= 8, K % 32 == 0, K <= " +
                           std::to_string(kSkinnyNormMaxK) + " and 16-byte aligned operands");
  }
  cudaError_t err = NormedSharedMemory<kEpilogue>().status;
  if (err == cudaSuccess) {
    err = LaunchDependent(SkinnyGemmKernel<kEpilogue, true>, ctas, kWarps * 32, size_t(m) * k * 2, stream, nullptr,
                          weight, m, n, k, y, in);
  }
  if (err == cudaSuccess) err = cudaGetLastError();
  if (err != cudaSuccess) return Internal(std::string(what) + ": " + cudaGetErrorString(err));
  return Status::Ok();
}

}  // namespace

bool SkinnyNormSupports(const SkinnyNormedInput& in, const uint16_t* weight, int m, int k, const uint16_t* y) {
  const size_t rows_bytes = size_t(m) * k * 2;
  return SkinnyLinearSupports(in.residual, weight, m, k, y) && k <= kSkinnyNormMaxK && in.weight != nullptr &&
         in.residual_out != nullptr && VectorAligned(in.delta) && VectorAligned(in.weight) &&
         VectorAligned(in.residual_out) && rows_bytes <= NormedSharedMemory<Epilogue::kStore>().limit &&
         rows_bytes <= NormedSharedMemory<Epilogue::kSiluMul>().limit;
}

Status SkinnyNormedLinear(const SkinnyNormedInput& in, const uint16_t* weight, int m, int n, int k, uint16_t* y,
                          cudaStream_t stream) {
  return LaunchNormed<Epilogue::kStore>(in, weight, m, n, k, y, unsigned((n + kTileCols - 1) / kTileCols),
                                        "skinny normed linear", stream);
}

Status SkinnyNormedLinearSiluMul(const SkinnyNormedInput& in, const uint16_t* gate_up, int m, int inter, int k,
                                 uint16_t* act, cudaStream_t stream) {
  if (inter % kGateUpBlock != 0) return InvalidArgument("skinny normed gate/up + silu_mul: inter % 4 != 0");
  return LaunchNormed<Epilogue::kSiluMul>(in, gate_up, m, 2 * inter, k, act, unsigned(inter / kGateUpBlock),
                                          "skinny normed gate/up + silu_mul", stream);
}

bool SkinnyLinearSupports(const uint16_t* x, const uint16_t* weight, int m, int k, const uint16_t* y) {
  return m >= 1 && m <= kSkinnyMaxRows && k > 0 && k % kChunk == 0 && VectorAligned(x) && VectorAligned(weight) &&
         VectorAligned(y);
}

Status SkinnyLinear(const uint16_t* x, const uint16_t* weight, int m, int n, int k, uint16_t* y,
                    cudaStream_t stream) {
  if (!SkinnyLinearSupports(x, weight, m, k, y) || n <= 0) {
    return InvalidArgument("skinny linear: " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) +
                           " needs 1 <= M <= 8, K % 32 == 0 and 16-byte aligned operands");
  }
  const dim3 grid((n + kTileCols - 1) / kTileCols);
  cudaError_t err = LaunchDependent(SkinnyGemmKernel<Epilogue::kStore, false>, grid, kWarps * 32, 0, stream, x,
                                    weight, m, n, k, y, SkinnyNormedInput{});
  if (err == cudaSuccess) err = cudaGetLastError();
  if (err != cudaSuccess) return Internal(std::string("skinny linear: ") + cudaGetErrorString(err));
  return Status::Ok();
}

Status SkinnyLinearSiluMul(const uint16_t* x, const uint16_t* gate_up, int m, int inter, int k, uint16_t* act,
                           cudaStream_t stream) {
  if (!SkinnyLinearSupports(x, gate_up, m, k, act) || inter <= 0 || inter % kGateUpBlock != 0) {
    return InvalidArgument("skinny gate/up + silu_mul: " + std::to_string(m) + "x" + std::to_string(inter) + "x" +
                           std::to_string(k) +
                           " needs 1 <= M <= 8, inter % 4 == 0, K % 32 == 0 and 16-byte aligned operands");
  }
  const dim3 grid(inter / kGateUpBlock);
  cudaError_t err = LaunchDependent(SkinnyGemmKernel<Epilogue::kSiluMul, false>, grid, kWarps * 32, 0, stream, x,
                                    gate_up, m, 2 * inter, k, act, SkinnyNormedInput{});
  if (err == cudaSuccess) err = cudaGetLastError();
  if (err != cudaSuccess) return Internal(std::string("skinny gate/up + silu_mul: ") + cudaGetErrorString(err));
  return Status::Ok();
}

}  // namespace vt::kernels::cuda
