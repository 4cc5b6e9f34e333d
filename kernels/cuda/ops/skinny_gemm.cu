#include "kernels/cuda/ops/skinny_gemm.h"

#include <cstdint>
#include <string>

#include "kernels/cuda/attention/mma_bf16.cuh"
#include "kernels/cuda/bf16.cuh"
#include "kernels/cuda/dependent_launch.h"
#include "kernels/cuda/per_device.h"
#include "kernels/device_alignment.h"

namespace vt::kernels::cuda {
namespace {

using attention::MmaBf16;

constexpr int kTileCols = 8;   // output columns per CTA: the MMA's 8 B columns
constexpr int kChunk = 32;     // K per warp step: 4 lanes x 8 values, two MMAs
constexpr int kUnroll = 8;     // chunks a warp has in flight (8 KiB of weights)

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

// One CTA per 8 output columns; warp w of Warps takes a contiguous range of K chunks, so its
// unrolled loads stream 512 contiguous bytes of each weight row. Lane 4q + c loads eight consecutive K values
// (physical offset 8c) of weight row q (the MMA's B column q) and of input row q (A row q; A rows
// 8-15 are zero). The MMA's logical K order is a permutation of the physical one, the same for A
// and B, so the dot products are unchanged: the first MMA takes values 0-3 of each lane (pairs at
// logical 2c and 2c + 8), the second values 4-7. Rows q >= M multiply zeros. Partial sums meet in
// shared memory in warp order.
template <int Warps>
__global__ void __launch_bounds__(Warps * 32) SkinnyGemmKernel(const uint16_t* __restrict__ x,
                                                                const uint16_t* __restrict__ weight, int m, int n,
                                                                int k, uint16_t* __restrict__ y) {
  AwaitPrecedingGrid();
  __shared__ float partial[Warps][kSkinnyMaxRows][kTileCols];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, q = lane / 4, c = lane % 4;
  const int col0 = blockIdx.x * kTileCols;
  // Columns past N read the last real row and are not written.
  const uint16_t* w_row = weight + static_cast<int64_t>(min(col0 + q, n - 1)) * k + 8 * c;
  const bool has_row = q < m;
  const uint16_t* x_row = x + static_cast<int64_t>(has_row ? q : 0) * k + 8 * c;
  float acc[4] = {0.f, 0.f, 0.f, 0.f};
  const int chunks = k / kChunk;
  const int per_warp = (chunks + Warps - 1) / Warps;
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
  if (threadIdx.x < kSkinnyMaxRows * kTileCols) {
    const int row = threadIdx.x / kTileCols, col = threadIdx.x % kTileCols;
    if (row < m && col0 + col < n) {
      float s = 0.f;
      for (int w = 0; w < Warps; ++w) s += partial[w][row][col];
      y[static_cast<int64_t>(row) * n + col0 + col] = FloatToBf16Bits(s);
    }
  }
}

}  // namespace

int SkinnyCtasPerSm(int warps) {
  auto held = [](auto kernel, int threads) {
    int per_sm = 0;
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0) == cudaSuccess ? per_sm : 0;
  };
  if (warps == 8) return held(SkinnyGemmKernel<8>, 8 * 32);
  if (warps == 6) return held(SkinnyGemmKernel<6>, 6 * 32);
  return 0;
}

namespace {

// CTAs of each form one SM holds at once, and the SM count: asked once per device.
struct SkinnyOccupancy {
  int sms = 0;
  int per_sm8 = 0, per_sm6 = 0;
};

SkinnyOccupancy Occupancy() {
  static PerDevice<SkinnyOccupancy> by_device;
  return by_device.Get([] {
    SkinnyOccupancy o;
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&o.sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
        (o.per_sm8 = SkinnyCtasPerSm(8)) == 0 || (o.per_sm6 = SkinnyCtasPerSm(6)) == 0) {
      return SkinnyOccupancy{};  // no occupancy known: every N gets 8 warps
    }
    return o;
  });
}

}  // namespace

// Measured on an H200 (docs/BENCHMARKS.md, "Skinny GEMM CTAs by N"): 6 warps where they make
// 1.3 waves one (N = 4096: 8-11% faster), and 4 warps where they would make 2 waves one lost
// (N = 6144: 13% slower), so 4 is not a form.
int SkinnyLinearWarps(int n) {
  const SkinnyOccupancy o = Occupancy();
  const int64_t tiles = (int64_t(n) + kTileCols - 1) / kTileCols;
  auto waves = [&](int per_sm) {
    const int64_t slots = int64_t(o.sms) * per_sm;
    return slots > 0 ? (tiles + slots - 1) / slots : INT64_MAX;
  };
  // Many waves (or none known): the last one is a small share of the call.
  if (waves(o.per_sm8) > 2) return 8;
  return waves(o.per_sm6) < waves(o.per_sm8) ? 6 : 8;
}

bool SkinnyLinearSupports(const uint16_t* x, const uint16_t* weight, int m, int k, const uint16_t* y) {
  return m >= 1 && m <= kSkinnyMaxRows && k > 0 && k % kChunk == 0 && VectorAligned(x) && VectorAligned(weight) &&
         VectorAligned(y);
}

Status SkinnyLinearWithWarps(const uint16_t* x, const uint16_t* weight, int m, int n, int k, uint16_t* y, int warps,
                             cudaStream_t stream) {
  if (!SkinnyLinearSupports(x, weight, m, k, y) || n <= 0) {
    return InvalidArgument("skinny linear: " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) +
                           " needs 1 <= M <= 8, K % 32 == 0 and 16-byte aligned operands");
  }
  const dim3 grid((n + kTileCols - 1) / kTileCols);
  cudaError_t err = cudaSuccess;
  switch (warps) {
    case 8: err = LaunchDependent(SkinnyGemmKernel<8>, grid, 8 * 32, 0, stream, x, weight, m, n, k, y); break;
    case 6: err = LaunchDependent(SkinnyGemmKernel<6>, grid, 6 * 32, 0, stream, x, weight, m, n, k, y); break;
    default: return InvalidArgument("skinny linear: " + std::to_string(warps) + " warps a CTA (8 or 6)");
  }
  if (err != cudaSuccess) return Internal(std::string("skinny linear: ") + cudaGetErrorString(err));
  return Status::Ok();
}

Status SkinnyLinear(const uint16_t* x, const uint16_t* weight, int m, int n, int k, uint16_t* y,
                    cudaStream_t stream) {
  return SkinnyLinearWithWarps(x, weight, m, n, k, y, SkinnyLinearWarps(n), stream);
}

}  // namespace vt::kernels::cuda
