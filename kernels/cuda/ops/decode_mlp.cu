#include "kernels/cuda/ops/decode_mlp.h"

#include <string>

#include "kernels/cuda/bf16.cuh"
#include "kernels/cuda/dependent_launch.h"
#include "kernels/cuda/ops/grid_barrier.cuh"
#include "kernels/cuda/ops/silu_times.cuh"
#include "kernels/cuda/ops/skinny_gemm.h"
#include "kernels/cuda/ops/skinny_tile.cuh"
#include "kernels/cuda/per_device.h"
#include "kernels/device_alignment.h"

namespace vt::kernels::cuda {
namespace {

using skinny::kTileCols;

constexpr int kMlpWarps = 8;  // the skinny GEMM's largest form; a phase whose form has fewer idles the rest

// One tile of y = x . W^T as the skinny kernel sums it (skinny::FinishTile), written as bf16 through
// `write`. `preloaded`: `b` holds the share's first weights already.
template <typename Write>
__device__ __forceinline__ void RunTile(const uint16_t* x, const uint16_t* weight, int m, int n, int k, int col0,
                                        int warps, skinny::Bf16x8 (&b)[skinny::kUnroll], bool preloaded,
                                        skinny::Partials<kMlpWarps>& partial, Write write) {
  const skinny::LaneShare share = skinny::ShareOf(x, weight, m, n, k, col0, warps);
  float acc[4] = {0.f, 0.f, 0.f, 0.f};
  skinny::AccumulateShare(acc, share, b, preloaded);
  skinny::FinishTile<kMlpWarps>(partial, acc, m, warps,
                                [&](int row, int col, float sum) { write(row, col, FloatToBf16Bits(sum)); });
  __syncthreads();  // the partials are the next tile's
}

__global__ void __launch_bounds__(kMlpWarps * 32)
    DecodeMlpKernel(const uint16_t* __restrict__ x, const uint16_t* __restrict__ gate_up,
                    const uint16_t* __restrict__ down, int m, int hidden, int inter, int gate_up_warps,
                    int down_warps, uint16_t* act, uint16_t* __restrict__ y, unsigned* barrier) {
  AwaitPrecedingGrid();
  __shared__ skinny::Partials<kMlpWarps> partial;
  __shared__ uint16_t gate[kSkinnyMaxRows][kTileCols];
  skinny::Bf16x8 b[skinny::kUnroll];
  // Gate and up tiles of the same 8 columns, so SiLU·mul needs nothing from another CTA.
  for (int pair = blockIdx.x; pair < inter / kTileCols; pair += gridDim.x) {
    const int col0 = pair * kTileCols;
    RunTile(x, gate_up, m, 2 * inter, hidden, col0, gate_up_warps, b, false, partial,
            [&](int row, int col, uint16_t g) { gate[row][col] = g; });
    RunTile(x, gate_up, m, 2 * inter, hidden, inter + col0, gate_up_warps, b, false, partial,
            [&](int row, int col, uint16_t up) {
              act[static_cast<int64_t>(row) * inter + col0 + col] = SiluTimes(gate[row][col], up);
            });
  }
  // The down projection's first weights stream while the CTAs meet.
  const int down_tiles = hidden / kTileCols;
  if (blockIdx.x < down_tiles) {
    const skinny::LaneShare first = skinny::ShareOf(act, down, m, hidden, inter, blockIdx.x * kTileCols, down_warps);
    skinny::LoadWeights(b, first, first.first);
  }
  GridBarrier(barrier);
  for (int tile = blockIdx.x; tile < down_tiles; tile += gridDim.x) {
    const int col0 = tile * kTileCols;
    RunTile(act, down, m, hidden, inter, col0, down_warps, b, tile == blockIdx.x, partial,
            [&](int row, int col, uint16_t v) { y[static_cast<int64_t>(row) * hidden + col0 + col] = v; });
  }
}

// One wave of DecodeMlpKernel on the current device: asked once a device.
int ResidentMlpCtas() {
  static PerDevice<int> by_device;
  return by_device.Get([] {
    int device = 0, sms = 0, per_sm = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, DecodeMlpKernel, kMlpWarps * 32, 0) != cudaSuccess) {
      return 0;
    }
    return sms * per_sm;
  });
}

}  // namespace

bool DecodeMlpSupports(const DecodeMlpParams& p) {
  return p.m >= 1 && p.m <= kSkinnyMaxRows && p.hidden > 0 && p.inter > 0 && p.hidden % skinny::kChunk == 0 &&
         p.inter % skinny::kChunk == 0 && p.barrier != nullptr && VectorAligned(p.x) && VectorAligned(p.gate_up) &&
         VectorAligned(p.down) && VectorAligned(p.act) && VectorAligned(p.y);
}

Status RunDecodeMlp(const DecodeMlpParams& p, cudaStream_t stream) {
  if (!DecodeMlpSupports(p)) {
    return InvalidArgument("decode mlp: m " + std::to_string(p.m) + ", hidden " + std::to_string(p.hidden) +
                           ", inter " + std::to_string(p.inter) +
                           " needs 1 <= m <= 8, hidden and inter multiples of 32, a barrier and 16-byte aligned "
                           "operands");
  }
  const int ctas = ResidentMlpCtas();
  if (ctas == 0) return Internal("decode mlp: no occupancy known for the current device");
  // The K splits the kernel-per-op path's skinny GEMMs use for these N: the same bits.
  const int gate_up_warps = SkinnyLinearWarps(2 * p.inter), down_warps = SkinnyLinearWarps(p.hidden);
  const cudaError_t err =
      LaunchDependentPlaced(DecodeMlpKernel, dim3(ctas), dim3(kMlpWarps * 32), 0, stream, LaunchPlacement{1, true},
                            p.x, p.gate_up, p.down, p.m, p.hidden, p.inter, gate_up_warps, down_warps, p.act, p.y,
                            p.barrier);
  if (err != cudaSuccess) return Internal(std::string("decode mlp: ") + cudaGetErrorString(err));
  return Status::Ok();
}

}  // namespace vt::kernels::cuda
