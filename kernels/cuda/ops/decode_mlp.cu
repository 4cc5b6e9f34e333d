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

// Sums of one tile (`share`'s, columns col0...) of y = x . W^T over the first `warps` warps, in the
// skinny kernel's order, for the threads that own an output: (row, col) = (threadIdx.x / 8,
// threadIdx.x % 8) with row < m. `preloaded`: `b` holds the share's first weights already; with a
// `next` share, its first weights are issued into `b` before the warps' sums meet.
template <typename Write>
__device__ __forceinline__ void RunTile(const skinny::LaneShare& share, bool preloaded, const skinny::LaneShare* next,
                                        int m, int warps, skinny::Bf16x8 (&b)[skinny::kUnroll],
                                        skinny::Partials<kMlpWarps>& partial, Write write) {
  float acc[4] = {0.f, 0.f, 0.f, 0.f};
  skinny::AccumulateShare(acc, share, b, preloaded);
  if (next != nullptr) skinny::LoadWeights(b, *next, next->first);
  skinny::StorePartials<kMlpWarps>(partial, acc);
  __syncthreads();
  if (threadIdx.x < m * kTileCols) {
    const int row = threadIdx.x / kTileCols, col = threadIdx.x % kTileCols;
    write(row, col, FloatToBf16Bits(skinny::SumOfWarps<kMlpWarps>(partial, row, col, warps)));
  }
  __syncthreads();  // the partials are the next tile's
}

// Each CTA streams gate, up, gate, up, ... then down tiles; every tile's first weights are issued
// while the tile before it sums its warps (the down projection's first ones before the barrier:
// weights never wait for another CTA, only the activations do).
__global__ void __launch_bounds__(kMlpWarps * 32)
    DecodeMlpKernel(const uint16_t* __restrict__ x, const uint16_t* __restrict__ gate_up,
                    const uint16_t* __restrict__ down, int m, int hidden, int inter, int gate_up_warps,
                    int down_warps, uint16_t* act, uint16_t* __restrict__ y, unsigned* barrier) {
  AwaitPrecedingGrid();
  __shared__ skinny::Partials<kMlpWarps> partial;
  __shared__ uint16_t gate[kSkinnyMaxRows][kTileCols];
  skinny::Bf16x8 b[skinny::kUnroll];
  const int pairs = inter / kTileCols, down_tiles = hidden / kTileCols;
  const bool has_down = blockIdx.x < down_tiles;
  const skinny::LaneShare first_down =
      skinny::ShareOf(act, down, m, hidden, inter, blockIdx.x * kTileCols, down_warps);
  bool preloaded = false;
  // Gate and up tiles of the same 8 columns, so SiLU·mul needs nothing from another CTA.
  for (int pair = blockIdx.x; pair < pairs; pair += gridDim.x) {
    const int col0 = pair * kTileCols;
    const skinny::LaneShare gate_share = skinny::ShareOf(x, gate_up, m, 2 * inter, hidden, col0, gate_up_warps);
    const skinny::LaneShare up_share = skinny::ShareOf(x, gate_up, m, 2 * inter, hidden, inter + col0, gate_up_warps);
    RunTile(gate_share, preloaded, &up_share, m, gate_up_warps, b, partial,
            [&](int row, int col, uint16_t g) { gate[row][col] = g; });
    const int next = pair + gridDim.x;
    const skinny::LaneShare next_gate =
        skinny::ShareOf(x, gate_up, m, 2 * inter, hidden, min(next, pairs - 1) * kTileCols, gate_up_warps);
    const skinny::LaneShare* after = next < pairs ? &next_gate : has_down ? &first_down : nullptr;
    RunTile(up_share, true, after, m, gate_up_warps, b, partial, [&](int row, int col, uint16_t up) {
      act[static_cast<int64_t>(row) * inter + col0 + col] = SiluTimes(gate[row][col], up);
    });
    preloaded = after != nullptr;
  }
  if (!preloaded && has_down) skinny::LoadWeights(b, first_down, first_down.first);
  GridBarrier(barrier);
  for (int tile = blockIdx.x; tile < down_tiles; tile += gridDim.x) {
    const int col0 = tile * kTileCols;
    const int next = tile + gridDim.x;
    const skinny::LaneShare share = skinny::ShareOf(act, down, m, hidden, inter, col0, down_warps);
    const skinny::LaneShare next_share =
        skinny::ShareOf(act, down, m, hidden, inter, min(next, down_tiles - 1) * kTileCols, down_warps);
    RunTile(share, true, next < down_tiles ? &next_share : nullptr, m, down_warps, b, partial,
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
