// The W4A16 GEMM's tiled form, for batches of 9 and more rows: Marlin's shape of the problem.
//
// A CTA of four warps owns a tile of up to 64 activation rows by 128 output columns over one K
// slice. The activations move through shared memory in 64-k stages (cp.async, four deep, 16-byte
// chunks XOR-swizzled by row so ldmatrix reads them without bank conflicts); each warp owns 32 of
// the columns (two 16-column blocks of the tile layout) and streams their weights from global
// memory straight into registers, several 64-row steps ahead, with their group scales. A weight
// word dequantises with lop3 and the bf16 magic number (exactly q - 8), is multiplied by its
// column's scale in bf16 (the value a bf16 dequantised checkpoint holds) and feeds every m16 row
// tile's MMA: one ldmatrix.x4 of activations serves four MMAs, one 16-byte weight load 4 x 2 x
// the row tiles. The spread form's warps own 16 columns and re-read four 4-byte activation words
// per MMA pair from shared memory, which limits it long before the weights do at M >= 16.
// K slices write fp32 partials that ReduceW4A16Slices adds in slice order (no atomics).
#include <cuda_bf16.h>

#include <algorithm>

#include "kernels/cuda/attention/mma_bf16.cuh"
#include "kernels/cuda/dependent_launch.h"
#include "kernels/cuda/w4a16/w4a16_common.cuh"

namespace vt::kernels::cuda {
namespace {

using attention::CpAsync16;
using attention::CpAsyncCommit;
using attention::CpAsyncWait;
using attention::LdMatrixX4;
using attention::MmaBf16;

constexpr int kWarps = 4;
constexpr int kBlocksPerWarp = 2;                          // 16-column blocks of the tile layout
constexpr int kTileCols = kWarps * kBlocksPerWarp * 16;    // 128
constexpr int kStages = 4;                                 // activation stages of 64 k in shared memory
constexpr int kStepK = 64;                                 // one 16-byte weight load per lane and block
static_assert(kStepK == 64 && kWarps * 32 == 16 * 8, "a thread stages one 16-byte chunk of each 16-row tile");

// CTAs per SM the kernel is built for, and the weight steps each warp keeps in flight. With one or
// two row tiles the registers allow four CTAs at 6 / 4 steps: 3-11% faster at M = 16 and 32 than
// three CTAs at 8 / 6 steps on five of six benchmark shapes (3% slower on 4096 x 6144). With four row
// tiles, four CTAs spilled and ran 6-33% slower, so the three- and four-tile builds keep three
// (docs/BENCHMARKS.md, "W4A16 from M = 9").
inline constexpr int CtasPerSm(int m_tiles) { return m_tiles >= 3 ? 3 : 4; }
template <int kMTiles>
inline constexpr int kWeightDepth = kMTiles == 1 ? 6 : 4;

// Rows a CTA stages, in whole 16-row tiles: a 48-row build for M = 33-48 is 1.1-1.25x faster there
// than 64 rows with a quarter of them padding.
int TileRows(int m) { return m <= 16 ? 16 : m <= 32 ? 32 : m <= 48 ? 48 : 64; }

template <int kMTiles>
__global__ void __launch_bounds__(kWarps * 32, CtasPerSm(kMTiles)) W4A16TileKernel(W4A16LaunchParams g) {
  constexpr int kRows = kMTiles * 16;
  constexpr int kStageElems = kRows * kStepK;
  constexpr int kDepth = kWeightDepth<kMTiles>;
  const W4A16Problem& p = g.p;
  extern __shared__ __align__(128) uint16_t a_s[];  // [kStages][kRows][64], chunks swizzled by row
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int q = lane / 4, c = lane % 4;
  const int slice = blockIdx.y, row0 = blockIdx.z * kRows;
  const int k_begin = slice * g.k_slice;
  const int iters = min(g.k_slice, p.k - k_begin) / kStepK;
  const int nb0 = blockIdx.x * (kTileCols / 16) + warp * kBlocksPerWarp;  // this warp's first block
  // N is a multiple of 64, so a warp's two blocks are both in range or both past it; a warp past
  // it still stages activations for the others.
  const bool active = nb0 < p.n / 16;
  const bool grouped = p.group_size != p.k;

  const uint4* wp[kBlocksPerWarp];
  const uint16_t* sp[kBlocksPerWarp];
#pragma unroll
  for (int b = 0; b < kBlocksPerWarp; ++b) {
    wp[b] = reinterpret_cast<const uint4*>(p.packed) +
            (static_cast<size_t>(nb0 + b) * (p.k / kStepK) + k_begin / kStepK) * 32 + lane;
    sp[b] = p.scales + (nb0 + b) * 16 + q;
  }
  // A step's weights and, for the first step of a 128-row group (`group_start`: slices start on a
  // group, and the steps of a group are an even and the odd one after it), the scales of its
  // columns q and q + 8 (low and high half), which the group's second step uses too. Loaded every
  // step, the form was up to 7% slower at M = 9-64 on an H200 (docs/BENCHMARKS.md, "A W4A16 group's
  // scales loaded once").
  auto load_step = [&](int step, bool group_start, uint4 (&w)[kBlocksPerWarp], uint32_t (&s)[kBlocksPerWarp]) {
    const size_t scale_row = grouped ? static_cast<size_t>(k_begin + step * kStepK) / 128 * p.n : 0;
#pragma unroll
    for (int b = 0; b < kBlocksPerWarp; ++b) {
      w[b] = LoadStreaming(wp[b] + step * 32);
      if (group_start) s[b] = uint32_t(__ldg(sp[b] + scale_row)) | uint32_t(__ldg(sp[b] + scale_row + 8)) << 16;
    }
  };
  // A stage is kRows x 8 chunks of 16 bytes, one chunk a thread in each 16-row tile: the thread's
  // chunk column, its rows' sources and its places in a stage are fixed, so a step adds only offsets.
  // A loop over i = threadIdx.x, i + 128, ... (trip count unknown to the compiler) dividing and
  // multiplying every step was 2-14% slower (docs/BENCHMARKS.md, "The tiled form's activations
  // staged at fixed addresses").
  const int chunk = threadIdx.x % 8, r0 = threadIdx.x / 8;
  const int a_dst = r0 * kStepK + ((chunk ^ (r0 & 7)) * 8);  // rows r0 + 16 mt share r0's swizzle
  const uint16_t* a_src = p.x + static_cast<size_t>(row0 + r0) * p.k + k_begin + chunk * 8;
  auto stage_activations = [&](int step) {
    uint16_t* stage = a_s + (step % kStages) * kStageElems + a_dst;
#pragma unroll
    for (int mt = 0; mt < kMTiles; ++mt) {
      const bool valid = row0 + r0 + mt * 16 < p.m;
      const uint16_t* src = valid ? a_src + static_cast<size_t>(mt * 16) * p.k + step * kStepK : p.x;
      CpAsync16(stage + mt * 16 * kStepK, src, valid);
    }
  };

  // The weight stream depends on nothing: it starts first.
  uint4 wbuf[kDepth][kBlocksPerWarp];
  uint32_t sbuf[kDepth][kBlocksPerWarp];
#pragma unroll
  for (int u = 0; u < kDepth; ++u) {
    if (active && u < iters) load_step(u, u % 2 == 0, wbuf[u], sbuf[u]);
  }
  AwaitPrecedingGrid();  // the activations are the output of the kernel before
#pragma unroll
  for (int st = 0; st < kStages - 1; ++st) {
    if (st < iters) stage_activations(st);
    CpAsyncCommit();
  }

  float acc[kMTiles][2 * kBlocksPerWarp][4] = {};
  // ldmatrix.x4 row addresses: lanes 8i .. 8i + 7 give matrix i's rows; matrices 0-3 are rows
  // 0-7 / 8-15 at k 0-7, then rows 0-7 / 8-15 at k 8-15: the A fragment a0..a3.
  const int lm_row = (lane % 8) + ((lane / 8) % 2) * 8, lm_chunk = lane / 16;

  static_assert(kDepth % 2 == 0, "a step's place in its group is its place in the unrolled ring");
  uint32_t cs[kBlocksPerWarp];  // the scales of the group being added
  for (int base = 0; base < iters; base += kDepth) {
#pragma unroll
    for (int u = 0; u < kDepth; ++u) {
      const int it = base + u;
      if (it < iters) {
        CpAsyncWait<kStages - 2>();
        __syncthreads();  // stage it landed for all; stage it - 1 is free to refill
        if (it + kStages - 1 < iters) stage_activations(it + kStages - 1);
        CpAsyncCommit();
        if (active) {
          const uint4 cur[kBlocksPerWarp] = {wbuf[u][0], wbuf[u][1]};
          if (u % 2 == 0) {
            cs[0] = sbuf[u][0];
            cs[1] = sbuf[u][1];
          }
          if (it + kDepth < iters) load_step(it + kDepth, u % 2 == 0, wbuf[u], sbuf[u]);
          const uint16_t* stage = a_s + (it % kStages) * kStageElems;
#pragma unroll
          for (int s = 0; s < 4; ++s) {
            uint32_t a[kMTiles][4];
#pragma unroll
            for (int mt = 0; mt < kMTiles; ++mt) {
              const int r = mt * 16 + lm_row;
              LdMatrixX4(a[mt][0], a[mt][1], a[mt][2], a[mt][3],
                         stage + r * kStepK + (((2 * s + lm_chunk) ^ (r & 7)) * 8));
            }
#pragma unroll
            for (int b = 0; b < kBlocksPerWarp; ++b) {
              const uint32_t word = s == 0 ? cur[b].x : s == 1 ? cur[b].y : s == 2 ? cur[b].z : cur[b].w;
              uint32_t w[4];
              DequantWord(word, w);
              const uint32_t s_lo = __byte_perm(cs[b], 0, 0x1010), s_hi = __byte_perm(cs[b], 0, 0x3232);
              w[0] = MulBf16x2(w[0], s_lo);
              w[1] = MulBf16x2(w[1], s_lo);
              w[2] = MulBf16x2(w[2], s_hi);
              w[3] = MulBf16x2(w[3], s_hi);
#pragma unroll
              for (int mt = 0; mt < kMTiles; ++mt) {
                MmaBf16(acc[mt][2 * b], a[mt][0], a[mt][1], a[mt][2], a[mt][3], w[0], w[1]);
                MmaBf16(acc[mt][2 * b + 1], a[mt][0], a[mt][1], a[mt][2], a[mt][3], w[2], w[3]);
              }
            }
          }
        }
      }
    }
  }
  CpAsyncWait<0>();
  if (!active) return;

#pragma unroll
  for (int mt = 0; mt < kMTiles; ++mt) {
#pragma unroll
    for (int j = 0; j < 2 * kBlocksPerWarp; ++j) {
      const int col = nb0 * 16 + j * 8 + 2 * c;
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int row = row0 + mt * 16 + q + half * 8;
        if (row >= p.m) continue;
        StoreW4A16Pair(g, slice, row, col, acc[mt][j][2 * half], acc[mt][j][2 * half + 1]);
      }
    }
  }
}

template <int kMTiles>
cudaError_t Launch(const W4A16LaunchParams& g, cudaStream_t stream) {
  const int rows = kMTiles * 16;
  const dim3 grid((g.p.n + kTileCols - 1) / kTileCols, g.slices, (g.p.m + rows - 1) / rows);
  return LaunchDependent(W4A16TileKernel<kMTiles>, grid, dim3(kWarps * 32), W4A16TileSmemBytes(g.p.m), stream, g);
}

}  // namespace

// The K split whose modelled time is least. CTAs run in waves of CtasPerSm per SM; a wave costs
// its CTAs' weight steps plus about four steps of pipeline fill, and each slice beyond one costs its
// fp32 partials, written and read back, counted at the rate of the weights (4 KB per CTA step). Over a sweep of forced splits on six shapes at M = 16,
// 32 and 64 the model's choice came within 1.5% of the best one; the first rule (about three CTAs
// per SM, rounded up) left a partial second wave and was 21% slower over the same sweep
// (docs/BENCHMARKS.md, "W4A16 from M = 9"). Slices other than the last are never shorter than
// min(256, K).
W4A16Split ChooseW4A16TileSplit(int m, int k, int n, int num_sms) {
  constexpr int kFillSteps = 4, kMaxSlices = 32;
  constexpr double kStepBytes = kTileCols * kStepK / 2.0;
  const int rows = TileRows(m);
  const int ctas = (n + kTileCols - 1) / kTileCols * ((m + rows - 1) / rows);
  const int slots = CtasPerSm(rows / 16) * std::max(1, num_sms);
  W4A16Split best{k, 1, W4A16Form::kTile};
  double best_cost = 0;
  for (int wanted = 1; wanted <= kMaxSlices; ++wanted) {
    const int slice = std::max(std::min(256, k), ((k + wanted - 1) / wanted + 127) / 128 * 128);
    const int slices = (k + slice - 1) / slice;
    const int waves = (ctas * slices + slots - 1) / slots;
    const double partials = slices > 1 ? 8.0 * slices * m * n / (slots * kStepBytes) : 0.0;
    const double cost = waves * (slice / kStepK + kFillSteps) + partials;
    if (wanted == 1 || cost < best_cost) {
      best = W4A16Split{slice, slices, W4A16Form::kTile};
      best_cost = cost;
    }
  }
  return best;
}

size_t W4A16TileSmemBytes(int m) {
  return static_cast<size_t>(kStages) * TileRows(m) * kStepK * sizeof(uint16_t);
}

cudaError_t LaunchW4A16Tile(const W4A16LaunchParams& g, cudaStream_t stream) {
  switch (TileRows(g.p.m)) {
    case 16: return Launch<1>(g, stream);
    case 32: return Launch<2>(g, stream);
    case 48: return Launch<3>(g, stream);
    default: return Launch<4>(g, stream);
  }
}

}  // namespace vt::kernels::cuda
