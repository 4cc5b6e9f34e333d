#include "kernels/cuda/ops/batch_decode_gemm.h"

#include <cooperative_groups.h>

#include <string>

#include "kernels/cuda/attention/mma_bf16.cuh"
#include "kernels/cuda/bf16.cuh"
#include "kernels/cuda/dependent_launch.h"
#include "kernels/cuda/device_probe.h"
#include "kernels/cuda/ops/wgmma.cuh"
#include "kernels/cuda/per_device.h"
#include "kernels/device_alignment.h"

namespace vt::kernels::cuda {
namespace {

namespace cg = cooperative_groups;
using attention::CpAsync16;
using attention::CpAsyncCommit;
using attention::CpAsyncWait;

constexpr int kWarps = 8;
constexpr int kThreads = kWarps * 32;
constexpr int kTileCols = 64 * (kWarps / 4);  // weight rows (output columns) per CTA: a wgmma's m64 per warpgroup
constexpr int kStepK = 64;              // K per pipeline stage: one 128-byte row segment, eight 16-byte chunks
constexpr int kMaxSplits = 8;           // the portable thread-block cluster size
constexpr int kRedStride = kTileCols + 4;  // floats per row of a partial tile (padding spreads the banks)

template <int MT>
struct Layout {
  static constexpr int kRows = 16 * MT;  // x rows a stage holds: M rounded up to 16, the wgmma's N
  // Pipeline stages: two CTAs fit an SM with these (more bytes in flight where x is small); MT = 3
  // would fit five, untried.
  static constexpr int kStages = MT == 1 ? 6 : MT == 2 ? 5 : 4;
  static constexpr int kStageElems = (kTileCols + kRows) * kStepK;
  static constexpr size_t kPipeBytes = size_t(kStages) * kStageElems * 2;
  static constexpr size_t kRedBytes = size_t(kRows) * kRedStride * 4;
  static constexpr size_t kSmemBytes = (kPipeBytes > kRedBytes ? kPipeBytes : kRedBytes) + kSwizzleAlign;
  static_assert(kSmemBytes <= 113 * 1024, "two CTAs per SM");
};

// Element offset of 16-byte chunk `chunk` of row `row` in a stage of 64-element rows: the 128-byte
// swizzle wgmma reads (rows 128 bytes apart would otherwise share banks).
__device__ __forceinline__ int Swizzle(int row, int chunk) { return row * kStepK + ((chunk ^ (row & 7)) << 3); }

// One CTA per (128-column tile, K split); the `splits` CTAs of a tile form one cluster along x.
// Warpgroup g multiplies weight rows 64g .. 64g + 63 of the tile against all 16 * MT x rows (rows >= M
// are zero) with one m64n(16 MT)k16 wgmma per k16 step, both operands straight from the swizzled
// stage. Each rank's partial tile lands in its own shared memory, and rank r then sums its share of
// the tile's elements over ranks 0 .. splits - 1 in that order, so the sum's order is fixed.
template <int MT>
__global__ void __launch_bounds__(kThreads) BatchGemmKernel(const uint16_t* __restrict__ x,
                                                            const uint16_t* __restrict__ weight, int m, int n, int k,
                                                            int splits, uint16_t* __restrict__ y) {
  using L = Layout<MT>;
  AwaitPrecedingGrid();
  extern __shared__ __align__(128) uint8_t smem_raw[];
  // The swizzle pattern is anchored to 1024-byte boundaries of the shared address.
  uint16_t* smem = SwizzleAlignedShared(smem_raw);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, q = lane / 4, c = lane % 4;
  const int group = warp / 4, group_warp = warp % 4;
  const int rank = blockIdx.x % splits, tile = blockIdx.x / splits;
  const int col0 = tile * kTileCols;
  const int steps = k / kStepK, first = rank * steps / splits, count = (rank + 1) * steps / splits - first;

  // Each thread copies the same chunk column of the same rows every stage (W: rows t/8 + 32r; x: the
  // same rows while they are below kRows), so the sources advance by one step and the swizzled
  // destinations are fixed.
  const int load_row = threadIdx.x / 8, load_chunk = threadIdx.x % 8;
  const int load_dst = Swizzle(load_row, load_chunk);
  const int64_t k_first = int64_t(first) * kStepK + load_chunk * 8;
  const uint16_t* w_src[kTileCols / 32];
#pragma unroll
  for (int r = 0; r < kTileCols / 32; ++r) {  // columns past N read the last real row and are not written
    w_src[r] = weight + int64_t(min(col0 + load_row + 32 * r, n - 1)) * k + k_first;
  }
  constexpr int kXPasses = (L::kRows + 31) / 32;
  const uint16_t* x_src[kXPasses];
  bool x_valid[kXPasses];
#pragma unroll
  for (int r = 0; r < kXPasses; ++r) {
    const int row = load_row + 32 * r;
    x_valid[r] = row < m;
    x_src[r] = x + int64_t(x_valid[r] ? row : 0) * k + k_first;
  }
  auto load_stage = [&](int step, int slot) {
    uint16_t* w_dst = smem + slot * L::kStageElems + load_dst;
    uint16_t* x_dst = w_dst + kTileCols * kStepK;
    const int offset = step * kStepK;
#pragma unroll
    for (int r = 0; r < kTileCols / 32; ++r) CpAsync16(w_dst + r * 32 * kStepK, w_src[r] + offset, true);
#pragma unroll
    for (int r = 0; r < kXPasses; ++r) {
      if (L::kRows % 32 == 0 || load_row + 32 * r < L::kRows) {
        CpAsync16(x_dst + r * 32 * kStepK, x_src[r] + offset, x_valid[r]);
      }
    }
  };

  float acc[8 * MT] = {};
  for (int s = 0; s < L::kStages - 1; ++s) {
    if (s < count) load_stage(s, s);
    CpAsyncCommit();
  }
  for (int step = 0; step < count; ++step) {
    CpAsyncWait<L::kStages - 2>();
    FenceProxyAsyncShared();  // this thread's copies of the stage, visible to the wgmma reads
    __syncthreads();          // the stage is in, and every warpgroup is done with the slot the next load refills
    if (step + L::kStages - 1 < count) load_stage(step + L::kStages - 1, (step + L::kStages - 1) % L::kStages);
    CpAsyncCommit();
    const uint16_t* stage = smem + (step % L::kStages) * L::kStageElems;
    const uint64_t a = SwizzledTileDescriptor(stage + 64 * group * kStepK);
    const uint64_t b = SwizzledTileDescriptor(stage + kTileCols * kStepK);
    WgmmaFence();
#pragma unroll
    for (int kk = 0; kk < kStepK / 16; ++kk) WgmmaBf16<16 * MT>(acc, a + 2 * kk, b + 2 * kk);  // +32 bytes
    WgmmaCommit();
    WgmmaWait<0>();
  }
  CpAsyncWait<0>();
  __syncthreads();  // the partial tile reuses the pipeline's shared memory

  // Accumulator j of n8 tile t sits at weight row 16 * (warp in group) + q (+8 for j >= 2) and x row
  // 8t + 2c (+1 for odd j); the partial tile is stored x row by x row.
  float* red = reinterpret_cast<float*>(smem);
  const int w_row = 64 * group + 16 * group_warp + q;
#pragma unroll
  for (int t = 0; t < 2 * MT; ++t) {
    const int x_row = 8 * t + 2 * c;
    red[x_row * kRedStride + w_row] = acc[4 * t];
    red[(x_row + 1) * kRedStride + w_row] = acc[4 * t + 1];
    red[x_row * kRedStride + w_row + 8] = acc[4 * t + 2];
    red[(x_row + 1) * kRedStride + w_row + 8] = acc[4 * t + 3];
  }
  cg::cluster_group cluster = cg::this_cluster();
  if (splits > 1) {
    cluster.sync();  // every rank's partial tile is written and visible
  } else {
    __syncthreads();
  }
  // Rank r writes quads [r * quads / splits, (r + 1) * quads / splits) of the M x 128 tile.
  const int quads = m * (kTileCols / 4);
  const int q_end = (rank + 1) * quads / splits;
  for (int qd = rank * quads / splits + threadIdx.x; qd < q_end; qd += kThreads) {
    const int row = qd / (kTileCols / 4), col = (qd % (kTileCols / 4)) * 4;
    float4 sum = make_float4(0.f, 0.f, 0.f, 0.f);
    for (int r = 0; r < splits; ++r) {
      const float* part = splits > 1 ? cluster.map_shared_rank(red, r) : red;
      const float4 v = *reinterpret_cast<const float4*>(part + row * kRedStride + col);
      sum.x += v.x;
      sum.y += v.y;
      sum.z += v.z;
      sum.w += v.w;
    }
    const int out_col = col0 + col;
    uint16_t* dst = y + int64_t(row) * n + out_col;
    if (out_col + 4 <= n && n % 4 == 0) {
      uint2 packed;
      packed.x = uint32_t(FloatToBf16Bits(sum.x)) | (uint32_t(FloatToBf16Bits(sum.y)) << 16);
      packed.y = uint32_t(FloatToBf16Bits(sum.z)) | (uint32_t(FloatToBf16Bits(sum.w)) << 16);
      *reinterpret_cast<uint2*>(dst) = packed;
    } else {
      const float v[4] = {sum.x, sum.y, sum.z, sum.w};
      for (int e = 0; e < 4 && out_col + e < n; ++e) dst[e] = FloatToBf16Bits(v[e]);
    }
  }
  if (splits > 1) cluster.sync();  // no rank leaves while another still reads its shared memory
}

struct DeviceShape {
  bool hopper = false;  // the wgmma image is built for sm_90a, which runs on compute capability 9.0 only
  int sms = 0;
};

DeviceShape CurrentDeviceShape() {
  static PerDevice<DeviceShape> shapes;
  return shapes.Get([] {
    DeviceShape s;
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess) return s;
    if (cudaDeviceGetAttribute(&s.sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) return s;
    s.hopper = CurrentDeviceRunsSm90a();
    return s;
  });
}

template <int MT>
cudaError_t Launch(const uint16_t* x, const uint16_t* weight, int m, int n, int k, uint16_t* y, int splits,
                   cudaStream_t stream) {
  constexpr size_t smem = Layout<MT>::kSmemBytes;
  const cudaError_t err = AllowDynamicSharedMemory<BatchGemmKernel<MT>, smem>();
  if (err != cudaSuccess) return err;
  const dim3 grid(static_cast<unsigned>((n + kTileCols - 1) / kTileCols * splits));
  return LaunchDependentClustered(BatchGemmKernel<MT>, grid, dim3(kThreads), smem, stream,
                                  static_cast<unsigned>(splits), x, weight, m, n, k, splits, y);
}

}  // namespace

int BatchLinearSplits(int n, int k, int sms) {
  // One CTA per SM at most: split while the doubled grid still fits the SMs at once and each split
  // keeps at least two pipeline steps. Measured against forcing 1, 2, 4 and 8 splits on the layers
  // of qwen3-1.7b and llama3-8b (docs/BENCHMARKS.md): filling the second CTA slot of each SM with
  // more splits, the rule before, was up to 1.4x slower (more partial tiles to reduce, shorter splits).
  const int tiles = (n + kTileCols - 1) / kTileCols, steps = k / kStepK;
  int splits = 1;
  while (splits < kMaxSplits && tiles * splits * 2 <= sms && steps >= 4 * splits) splits *= 2;
  return splits;
}

bool BatchLinearSupports(const uint16_t* x, const uint16_t* weight, int m, int n, int k, const uint16_t* y) {
  return x != nullptr && weight != nullptr && y != nullptr && m >= kBatchGemmMinRows && m <= kBatchGemmMaxRows &&
         n >= 1 && k > 0 && k % kStepK == 0 &&
         VectorAligned(x) && VectorAligned(weight) && VectorAligned(y) && CurrentDeviceShape().hopper;
}

Status BatchLinear(const uint16_t* x, const uint16_t* weight, int m, int n, int k, uint16_t* y,
                   cudaStream_t stream, int splits) {
  if (splits != 0 && splits != 1 && splits != 2 && splits != 4 && splits != kMaxSplits) {
    return InvalidArgument("batch decode linear: " + std::to_string(splits) + " K splits (1, 2, 4 or 8)");
  }
  if (!BatchLinearSupports(x, weight, m, n, k, y)) {
    return InvalidArgument("batch decode linear: " + std::to_string(m) + "x" + std::to_string(n) + "x" +
                           std::to_string(k) +
                           " needs 9 <= M <= 64, N >= 1, K % 64 == 0, 16-byte aligned operands and an sm_90 GPU");
  }
  if (splits == 0) splits = BatchLinearSplits(n, k, CurrentDeviceShape().sms);
  cudaError_t err = cudaSuccess;
  switch ((m + 15) / 16) {
    case 1: err = Launch<1>(x, weight, m, n, k, y, splits, stream); break;
    case 2: err = Launch<2>(x, weight, m, n, k, y, splits, stream); break;
    case 3: err = Launch<3>(x, weight, m, n, k, y, splits, stream); break;
    default: err = Launch<4>(x, weight, m, n, k, y, splits, stream); break;
  }
  if (err != cudaSuccess) return Internal(std::string("batch decode linear: ") + cudaGetErrorString(err));
  return Status::Ok();
}

}  // namespace vt::kernels::cuda
