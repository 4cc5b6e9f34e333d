#include "kernels/cuda/ops/skinny_gemm.h"

#include <cstdint>
#include <string>

#include "kernels/cuda/bf16.cuh"
#include "kernels/cuda/dependent_launch.h"
#include "kernels/cuda/ops/skinny_tile.cuh"
#include "kernels/cuda/per_device.h"
#include "kernels/device_alignment.h"

namespace vt::kernels::cuda {
namespace {

using skinny::kTileCols;

// One CTA per 8 output columns (skinny_tile.cuh has the lanes' layout). With WeightsBeforeWait (the
// launcher's choice only where one group of loads is each warp's whole share) the weights are in
// flight before the wait and the inputs after it, all of them before the first MMA.
template <int Warps, bool WeightsBeforeWait = false>
__global__ void __launch_bounds__(Warps * 32) SkinnyGemmKernel(const uint16_t* __restrict__ x,
                                                                const uint16_t* __restrict__ weight, int m, int n,
                                                                int k, uint16_t* __restrict__ y) {
  if constexpr (!WeightsBeforeWait) AwaitPrecedingGrid();
  __shared__ skinny::Partials<Warps> partial;
  const int col0 = blockIdx.x * kTileCols;
  const skinny::LaneShare share = skinny::ShareOf(x, weight, m, n, k, col0, Warps);
  float acc[4] = {0.f, 0.f, 0.f, 0.f};
  skinny::Bf16x8 b[skinny::kUnroll];
  if constexpr (WeightsBeforeWait) {
    skinny::LoadWeights(b, share, share.first);
    AwaitPrecedingGrid();
    skinny::AccumulateOneGroupShare(acc, share, b);
  } else {
    skinny::AccumulateShare(acc, share, b, false);
  }
  skinny::FinishTile<Warps>(partial, acc, m, Warps, [&](int row, int col, float sum) {
    if (col0 + col < n) y[static_cast<int64_t>(row) * n + col0 + col] = FloatToBf16Bits(sum);
  });
}

// Only a warp whose whole share is one group has nothing to stream after the wait (a streaming loop
// behind a preloaded group compiled to 64 registers, the eleventh session's staged build).
bool OneGroupShares(int k, int warps) { return skinny::ChunksPerWarp(k, warps) <= skinny::kUnroll; }

using SkinnyKernel = void (*)(const uint16_t*, const uint16_t*, int, int, int, uint16_t*);

// The kernel of a form: 8 or 6 warps a CTA, weights before or after the wait; null for other counts.
SkinnyKernel KernelOf(int warps, bool weights_before_wait) {
  if (warps == 8) return weights_before_wait ? SkinnyGemmKernel<8, true> : SkinnyGemmKernel<8>;
  if (warps == 6) return weights_before_wait ? SkinnyGemmKernel<6, true> : SkinnyGemmKernel<6>;
  return nullptr;
}

}  // namespace

int SkinnyCtasPerSm(int warps, SkinnyWeights weights) {
  const SkinnyKernel kernel = KernelOf(warps, weights == SkinnyWeights::kBeforeWait);
  int per_sm = 0;
  return kernel != nullptr &&
                 cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, warps * 32, 0) == cudaSuccess
             ? per_sm
             : 0;
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

bool SkinnyLoadsWeightsBeforeWait(int n, int k) { return OneGroupShares(k, SkinnyLinearWarps(n)); }

bool SkinnyLinearSupports(const uint16_t* x, const uint16_t* weight, int m, int k, const uint16_t* y) {
  return m >= 1 && m <= kSkinnyMaxRows && k > 0 && k % skinny::kChunk == 0 && VectorAligned(x) &&
         VectorAligned(weight) && VectorAligned(y);
}

Status SkinnyLinearWithWarps(const uint16_t* x, const uint16_t* weight, int m, int n, int k, uint16_t* y, int warps,
                             cudaStream_t stream, SkinnyWeights weights) {
  if (!SkinnyLinearSupports(x, weight, m, k, y) || n <= 0) {
    return InvalidArgument("skinny linear: " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) +
                           " needs 1 <= M <= 8, K % 32 == 0 and 16-byte aligned operands");
  }
  const dim3 grid((n + kTileCols - 1) / kTileCols);
  const bool before = weights == SkinnyWeights::kBeforeWait && DependentLaunchOn() && OneGroupShares(k, warps);
  const SkinnyKernel kernel = KernelOf(warps, before);
  if (kernel == nullptr) return InvalidArgument("skinny linear: " + std::to_string(warps) + " warps a CTA (8 or 6)");
  const cudaError_t err = LaunchDependent(kernel, grid, warps * 32, 0, stream, x, weight, m, n, k, y);
  if (err != cudaSuccess) return Internal(std::string("skinny linear: ") + cudaGetErrorString(err));
  return Status::Ok();
}

Status SkinnyLinear(const uint16_t* x, const uint16_t* weight, int m, int n, int k, uint16_t* y,
                    cudaStream_t stream, SkinnyWeights weights) {
  return SkinnyLinearWithWarps(x, weight, m, n, k, y, SkinnyLinearWarps(n), stream, weights);
}

}  // namespace vt::kernels::cuda
