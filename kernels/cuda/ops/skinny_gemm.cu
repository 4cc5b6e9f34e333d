#include "kernels/cuda/ops/skinny_gemm.h"

#include <algorithm>
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

// One K chunk into the accumulators: values 0-3 of each lane, then 4-7 (see SkinnyGemmKernel).
__device__ __forceinline__ void MultiplyChunk(float (&acc)[4], const Bf16x8& a, const Bf16x8& b) {
  MmaBf16(acc, a.pair[0], 0u, a.pair[1], 0u, b.pair[0], b.pair[1]);
  MmaBf16(acc, a.pair[2], 0u, a.pair[3], 0u, b.pair[2], b.pair[3]);
}

// One CTA per 8 output columns; warp w of Warps takes a contiguous range of K chunks, so its
// unrolled loads stream 512 contiguous bytes of each weight row. Lane 4q + c loads eight consecutive K values
// (physical offset 8c) of weight row q (the MMA's B column q) and of input row q (A row q; A rows
// 8-15 are zero). The MMA's logical K order is a permutation of the physical one, the same for A
// and B, so the dot products are unchanged: the first MMA takes values 0-3 of each lane (pairs at
// logical 2c and 2c + 8), the second values 4-7. Rows q >= M multiply zeros. Partial sums meet in
// shared memory in warp order.
//
// The weights are constant through a step, so each warp copies the first `staged` chunks of its
// range into shared memory (cp.async) before it waits for the preceding grid: a CTA launched
// dependently and resident while the kernels before it finish pulls its weights from DRAM during
// their tail instead of after it. The rest of the range streams through registers after the wait.
// Staged or streamed, a warp multiplies its chunks in the same order, so `staged` never changes the bits.
// The form without staging is its own build (kStaging false): ptxas gives the staging code's
// streamed loop fewer registers (64 against 80 at 8 warps), and the streamed form keeps its own.
template <int Warps, bool kStaging>
__global__ void __launch_bounds__(Warps * 32) SkinnyGemmKernel(const uint16_t* __restrict__ x,
                                                                const uint16_t* __restrict__ weight, int m, int n,
                                                                int k, int staged, uint16_t* __restrict__ y) {
  extern __shared__ Bf16x8 staged_weights[];  // [Warps][staged chunks][kTileCols rows][4 lanes' 16 bytes]
  __shared__ float partial[Warps][kSkinnyMaxRows][kTileCols];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, q = lane / 4, c = lane % 4;
  const int col0 = blockIdx.x * kTileCols;
  const int chunks = k / kChunk;
  const int per_warp = (chunks + Warps - 1) / Warps;
  const int first = warp * per_warp, last = min(first + per_warp, chunks);
  const int head = kStaging ? max(0, min(staged, last - first)) : 0;  // this warp's staged chunks
  Bf16x8* mine = staged_weights + static_cast<int64_t>(warp) * staged * kTileCols * 4;
  if constexpr (kStaging) {
    for (int p = lane; p < kTileCols * head * 4; p += 32) {  // lanes walk one row's head, 16 bytes each
      const int row = p / (head * 4), piece = p % (head * 4);
      const uint16_t* src = weight + static_cast<int64_t>(min(col0 + row, n - 1)) * k + first * kChunk + piece * 8;
      attention::CpAsync16<true>(mine + ((piece / 4) * kTileCols + row) * 4 + piece % 4, src, true);
    }
    attention::CpAsyncCommit();
  }
  AwaitPrecedingGrid();
  // Columns past N read the last real row and are not written.
  const uint16_t* w_row = weight + static_cast<int64_t>(min(col0 + q, n - 1)) * k + 8 * c;
  const bool has_row = q < m;
  const uint16_t* x_row = x + static_cast<int64_t>(has_row ? q : 0) * k + 8 * c;
  float acc[4] = {0.f, 0.f, 0.f, 0.f};
  if constexpr (kStaging) {
    attention::CpAsyncWait<0>();
    __syncwarp();
  }
  for (int s0 = 0; s0 < head; s0 += kUnroll) {
    Bf16x8 a[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      a[u] = Bf16x8{};
      if (s0 + u < head && has_row) a[u] = Load(x_row + (first + s0 + u) * kChunk);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      // 32 lanes read 512 consecutive bytes.
      if (s0 + u < head) MultiplyChunk(acc, a[u], mine[((s0 + u) * kTileCols + q) * 4 + c]);
    }
  }
  for (int base = first + head; base < last; base += kUnroll) {
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
      if (base + u < last) MultiplyChunk(acc, a[u], b[u]);
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

// CTAs of each form one SM holds at once, the chunks each of their warps may stage in shared memory
// without lowering that, and the SM count: asked once per device.
struct SkinnyOccupancy {
  int sms = 0;
  int per_sm8 = 0, per_sm6 = 0;
  int stage_cap8 = 0, stage_cap6 = 0;
};

constexpr int StagedBytes(int warps, int staged) { return warps * staged * kTileCols * kChunk * 2; }

// The most chunks a warp of a Warps-warp CTA can stage while `per_sm` CTAs still fit an SM (0: none),
// with the kernel allowed that much dynamic shared memory, and asking for the largest shared-memory
// carveout (an SM can only host three staged CTAs there), on the current device. A failed query
// stages nothing and leaves no error behind for the next launch to report.
template <int Warps>
int StageCap(int device, int per_sm) {
  auto none = [] {
    (void)cudaGetLastError();
    return 0;
  };
  int smem_per_sm = 0, smem_per_block = 0, reserved = 0;
  cudaFuncAttributes attr{};
  if (per_sm <= 0 ||
      cudaDeviceGetAttribute(&smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&smem_per_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, device) != cudaSuccess ||
      cudaFuncGetAttributes(&attr, SkinnyGemmKernel<Warps, true>) != cudaSuccess) {
    return none();
  }
  const int dynamic = std::min(smem_per_sm / per_sm - reserved, smem_per_block) - int(attr.sharedSizeBytes);
  int cap = dynamic / StagedBytes(Warps, 1);
  if (cap <= 0 ||
      cudaFuncSetAttribute(SkinnyGemmKernel<Warps, true>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           StagedBytes(Warps, cap)) != cudaSuccess ||
      cudaFuncSetAttribute(SkinnyGemmKernel<Warps, true>, cudaFuncAttributePreferredSharedMemoryCarveout,
                           cudaSharedmemCarveoutMaxShared) != cudaSuccess) {
    return none();
  }
  for (int fits = 0; cap > 0; --cap) {
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fits, SkinnyGemmKernel<Warps, true>, Warps * 32,
                                                      StagedBytes(Warps, cap)) == cudaSuccess &&
        fits >= per_sm) {
      return cap;
    }
  }
  return none();
}

SkinnyOccupancy Occupancy() {
  static PerDevice<SkinnyOccupancy> by_device;
  return by_device.Get([] {
    SkinnyOccupancy o;
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&o.sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&o.per_sm8, SkinnyGemmKernel<8, false>, 8 * 32, 0) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&o.per_sm6, SkinnyGemmKernel<6, false>, 6 * 32, 0) != cudaSuccess) {
      return SkinnyOccupancy{};  // no occupancy known: every N gets 8 warps, nothing staged
    }
    o.stage_cap8 = StageCap<8>(device, o.per_sm8);
    o.stage_cap6 = StageCap<6>(device, o.per_sm6);
    return o;
  });
}

// Measured on an H200 (docs/BENCHMARKS.md, "Skinny GEMM CTAs by N"): 6 warps where they make
// 1.3 waves one (N = 4096: 8-11% faster), and 4 warps where they would make 2 waves one lost
// (N = 6144: 13% slower), so 4 is not a form.
int WarpsFor(const SkinnyOccupancy& o, int n) {
  const int64_t tiles = (int64_t(n) + kTileCols - 1) / kTileCols;
  auto waves = [&](int per_sm) {
    const int64_t slots = int64_t(o.sms) * per_sm;
    return slots > 0 ? (tiles + slots - 1) / slots : INT64_MAX;
  };
  // Many waves (or none known): the last one is a small share of the call.
  if (waves(o.per_sm8) > 2) return 8;
  return waves(o.per_sm6) < waves(o.per_sm8) ? 6 : 8;
}

int StagedChunksFor(const SkinnyOccupancy& o, int warps, int k) {
  const int per_warp = (k / kChunk + warps - 1) / warps;
  return std::max(0, std::min(per_warp, warps == 8 ? o.stage_cap8 : warps == 6 ? o.stage_cap6 : 0));
}

Status Run(const SkinnyOccupancy& o, const uint16_t* x, const uint16_t* weight, int m, int n, int k, uint16_t* y,
           int warps, SkinnyStaging staging, cudaStream_t stream) {
  if (!SkinnyLinearSupports(x, weight, m, k, y) || n <= 0) {
    return InvalidArgument("skinny linear: " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) +
                           " needs 1 <= M <= 8, K % 32 == 0 and 16-byte aligned operands");
  }
  if (warps != 8 && warps != 6) {
    return InvalidArgument("skinny linear: " + std::to_string(warps) + " warps a CTA (8 or 6)");
  }
  const int staged = staging == SkinnyStaging::kOff ? 0 : StagedChunksFor(o, warps, k);
  const dim3 grid((n + kTileCols - 1) / kTileCols);
  const size_t smem = size_t(StagedBytes(warps, staged));
  auto kernel = warps == 8 ? (staged > 0 ? SkinnyGemmKernel<8, true> : SkinnyGemmKernel<8, false>)
                           : (staged > 0 ? SkinnyGemmKernel<6, true> : SkinnyGemmKernel<6, false>);
  const cudaError_t err = LaunchDependent(kernel, grid, warps * 32, smem, stream, x, weight, m, n, k, staged, y);
  if (err != cudaSuccess) return Internal(std::string("skinny linear: ") + cudaGetErrorString(err));
  return Status::Ok();
}

}  // namespace

int SkinnyLinearWarps(int n) { return WarpsFor(Occupancy(), n); }

bool SkinnyLinearSupports(const uint16_t* x, const uint16_t* weight, int m, int k, const uint16_t* y) {
  return m >= 1 && m <= kSkinnyMaxRows && k > 0 && k % kChunk == 0 && VectorAligned(x) && VectorAligned(weight) &&
         VectorAligned(y);
}

int SkinnyStagedChunks(int warps, int k) { return StagedChunksFor(Occupancy(), warps, k); }

Status SkinnyLinearWithWarps(const uint16_t* x, const uint16_t* weight, int m, int n, int k, uint16_t* y, int warps,
                             SkinnyStaging staging, cudaStream_t stream) {
  return Run(Occupancy(), x, weight, m, n, k, y, warps, staging, stream);
}

// The device's occupancy is looked up once a call: it picks the form and the staged head.
Status SkinnyLinear(const uint16_t* x, const uint16_t* weight, int m, int n, int k, uint16_t* y, SkinnyStaging staging,
                    cudaStream_t stream) {
  const SkinnyOccupancy o = Occupancy();
  return Run(o, x, weight, m, n, k, y, WarpsFor(o, n), staging, stream);
}

}  // namespace vt::kernels::cuda
