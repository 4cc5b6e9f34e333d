// The W4A16 GEMM's stacked form, for one or two rows (it takes up to eight): all eight warps of a CTA
// on one 16-column block, interleaved over the K slice's 64-row steps, so a CTA round reads 4 KB of
// contiguous weights, a CTA streams its column block from end to end (concurrent CTAs read whole
// column blocks, not 512-byte pieces of eight of them), only the m real activation rows are staged,
// and with K unsplit there is no partial-sum pass. An unsplit call with more column blocks than one
// wave holds runs one wave, each CTA streaming several blocks one after another with its activations
// staged once. The weights are the MMA's A operand (16 columns as rows) and the activations its
// 8-wide B operand, as in the spread form's swapped build (w4a16_gemm.cu).
#include <cuda_bf16.h>

#include <algorithm>

#include "kernels/cuda/attention/mma_bf16.cuh"
#include "kernels/cuda/attention/resident_grid.h"
#include "kernels/cuda/bf16.cuh"
#include "kernels/cuda/dependent_launch.h"
#include "kernels/cuda/w4a16/w4a16_common.cuh"

namespace vt::kernels::cuda {
namespace {

using attention::MmaBf16;
using GemmParams = W4A16LaunchParams;

constexpr int kWarps = 8;
// Four CTAs per SM (64 registers), six loads deep: 96 KB of weights in flight per SM.
constexpr int kStackCtasPerSm = 4;
constexpr int kStackUnroll = 6;

// Where activation (row, k) sits in the stacked form's shared memory: within each 64-row step, the
// eight words (k pairs) lane c of a row reads for the step's four k16 MMAs lie side by side, so they
// are two 16-byte loads instead of eight 4-byte ones.
__device__ __forceinline__ int StackedActivationIndex(int k) {
  const int in_step = k % 64, s = in_step / 16, h = (in_step % 16) / 8, c = (in_step % 8) / 2;
  return k - in_step + c * 16 + s * 4 + h * 2 + (k & 1);
}

// The end of a stacked-form column block: the eight warps' sums added in warp order and written
// (bf16 into y, or fp32 into the slice's partial sums), and `acc` cleared for the next block. Its
// barriers also make the next block's scales, copied by every thread, visible to every warp.
__device__ __forceinline__ void FinishStackBlock(const GemmParams& g, int slice, int nb, float (&acc)[4],
                                                 float (&warp_sums)[kWarps][32][4]) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
#pragma unroll
  for (int e = 0; e < 4; ++e) {
    warp_sums[warp][lane][e] = acc[e];
    acc[e] = 0.f;
  }
  attention::CpAsyncWait<0>();
  __syncthreads();
  if (threadIdx.x < 32 * 4) {
    const int sum_lane = threadIdx.x / 4, e = threadIdx.x % 4;
    float sum = 0.f;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) sum += warp_sums[w][sum_lane][e];
    const int row = 2 * (sum_lane % 4) + (e & 1), col = nb * 16 + sum_lane / 4 + (e < 2 ? 0 : 8);
    if (row < g.p.m) {
      if (g.slices == 1) {
        g.p.y[static_cast<size_t>(row) * g.p.n + col] = FloatToBf16Bits(sum);
      } else {
        g.partial[(static_cast<size_t>(slice) * g.p.m + row) * g.p.n + col] = sum;
      }
    }
  }
  __syncthreads();  // warp_sums is written again at the next block's end
}

// The stacked form (M <= 8), its weights the MMA's A operand: warp w takes the slice's 64-row steps w,
// w + 8, ..., scales each step's MMA sum by its group's scale, and the eight warps' sums are added
// in warp order through shared memory. ncu at M = 1, 8192 x 8192, before its CTAs ran several blocks:
// 112 instructions a warp per 512-byte step, prologue included (the spread form: 137), 41.7% of DRAM
// bandwidth against 35.4%; at 2d08479, before each step's addresses were stepped on, 132 (H100).
//
// A CTA takes the 16-column blocks blockIdx.x, blockIdx.x + gridDim.x, ... of its slice in turn (an
// unsplit call with more blocks than one wave holds launches one wave; otherwise every CTA has one):
// it stages the slice's activations once, its weight loads run on from one block into the next, and
// each block's scales are copied into one of two buffers while the block before streams. A block's
// arithmetic is the same whichever CTA runs it and how many blocks that CTA has, so its bits are too.
__global__ void __launch_bounds__(kWarps * 32, kStackCtasPerSm) W4A16StackKernel(GemmParams g) {
  const W4A16Problem& p = g.p;
  extern __shared__ __align__(16) uint16_t x_s[];  // [m][pitch] permuted, then the scales [2][groups][16] bf16
  __shared__ float warp_sums[kWarps][32][4];
  const int pitch = g.k_slice + 8;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int q = lane / 4, c = lane % 4;
  const int slice = blockIdx.y;
  const int k_begin = slice * g.k_slice;
  const int k_len = min(g.k_slice, p.k - k_begin);
  const int iters = k_len / 64;
  // Every warp walks the same steps a block (those past the slice's iters load and add nothing), so
  // the block ends, and their barriers, line up across the CTA.
  const int block_steps = (iters + kWarps - 1) / kWarps;
  const int my_steps = warp < iters ? (iters - warp + kWarps - 1) / kWarps : 0;  // of them, this warp's
  const int blocks = (p.n / 16 - static_cast<int>(blockIdx.x) + gridDim.x - 1) / gridDim.x;

  const bool grouped = p.group_size != p.k;  // else one scale row for all of K
  const int first_group = grouped ? k_begin / 128 : 0;
  const int groups = grouped ? k_len / 128 : 1;
  uint16_t* scale_s = x_s + p.m * pitch;  // [2][groups][16]: block t's in buffer t % 2
  // Block t's scales (16 columns a group, two 16-byte pieces) into its buffer, as one copy group.
  auto copy_scales = [&](int t) {
    const int nb = blockIdx.x + t * gridDim.x;
    uint16_t* dst = scale_s + (t % 2) * groups * 16;
    for (int i = threadIdx.x; i < groups * 2; i += kWarps * 32) {
      attention::CpAsync16(dst + i * 8, p.scales + static_cast<size_t>(first_group + i / 2) * p.n + nb * 16 + (i % 2) * 8,
                           true);
    }
    attention::CpAsyncCommit();
  };

  // The step whose weights load next: step `ld_step` of block `ld_block`, this lane's at `ld_ptr` (a
  // block is p.k / 64 runs of 32 uint4; the CTA's next is gridDim.x on). The pointer steps on by a
  // load's stride, and at a block's end by the rest of the way to the CTA's next block, as the
  // activations' and scales' pointers below: fewer instructions a step than computing each address
  // from the step (docs/BENCHMARKS.md, "Each step's addresses stepped on").
  int ld_block = 0, ld_step = 0;
  const uint4* ld_ptr = reinterpret_cast<const uint4*>(p.packed) +
                        (static_cast<size_t>(blockIdx.x) * (p.k / 64) + k_begin / 64 + warp) * 32 + lane;
  const ptrdiff_t block_jump =
      static_cast<ptrdiff_t>(gridDim.x) * (p.k / 64) * 32 - block_steps * kWarps * 32;
  auto load_next = [&](uint4& dst) {
    if (ld_block < blocks && ld_step < my_steps) dst = LoadStreaming(ld_ptr);
    ld_ptr += kWarps * 32;
    if (++ld_step == block_steps) {
      ld_step = 0;
      ++ld_block;
      ld_ptr += block_jump;
    }
  };

  uint4 buf[kStackUnroll];
#pragma unroll
  for (int u = 0; u < kStackUnroll; ++u) load_next(buf[u]);
  // No kernel of a step writes scales: the first two blocks' go out before the wait too.
  copy_scales(0);
  if (blocks > 1) copy_scales(1);
  // As a dependent launch, the loads above overlap the kernel before; the activations are its output.
  AwaitPrecedingGrid();

  // Each 16-byte piece of a row (eight k of one k16 half) holds one word for each lane c: the four
  // words go to the four lanes' runs. Only the m real rows are staged. (Four pieces a thread in
  // flight at once measured no faster: 16.7 against 16.2 us at 8192 x 8192.)
  const int pieces = k_len / 8;
  for (int r = 0; r < p.m; ++r) {
    const uint4* src = reinterpret_cast<const uint4*>(p.x + static_cast<size_t>(r) * p.k + k_begin);
    uint16_t* dst = x_s + r * pitch;
    for (int i = threadIdx.x; i < pieces; i += kWarps * 32) {
      const uint4 v = __ldg(src + i);
      uint32_t* run = reinterpret_cast<uint32_t*>(dst + StackedActivationIndex(i * 8));
      run[0] = v.x;
      run[8] = v.y;
      run[16] = v.z;
      run[24] = v.w;
    }
  }
  attention::CpAsyncWait<0>();
  __syncthreads();

  constexpr uint32_t kMinus136 = 0xc308c308;  // bf16 -136 in both halves
  // Lanes of activation rows past m read row m - 1's: an MMA column (an activation row) adds into
  // its own output row only, and rows past m are never stored, so those lanes need no branch and no
  // zeros, and the real rows' sums are the same bits.
  // This warp's first step (step it = warp + 8 step): its activations, and its scales' offset in a
  // block's buffer (group it / 2, two 64-row steps a group of 128, or the one row of a per-channel call).
  const uint4* x_first = reinterpret_cast<const uint4*>(x_s + min(q, p.m - 1) * pitch + c * 16) + warp * 8;
  const int sc_first = grouped ? warp / 2 * 16 : 0;
  // This lane's column in the current block's buffer, kept rather than recomputed from `block` each
  // step: in a build from before each step's weights were used ahead of their register's reload (which
  // brought the spills to 8 bytes), recomputing it spilled 36 bytes against 28.
  const uint16_t* block_scales = scale_s + q;
  // The activations and scales of the step being added, stepped on by a step's stride (eight 64-row
  // steps of activations; four 128-row groups of scales, or none per channel) and reset to the warp's
  // first at a block's end, as the weight loads' pointer is.
  const uint4* x_step = x_first;
  const uint16_t* sc_step = block_scales + sc_first;
  const int sc_stride = grouped ? kWarps / 2 * 16 : 0;
  float acc[4] = {0.f, 0.f, 0.f, 0.f};
  int block = 0, step = 0;  // the step being added
  while (block < blocks) {
#pragma unroll
    for (int u = 0; u < kStackUnroll; ++u) {
      if (block < blocks) {
        // The step's weights are used before their register takes the load kStackUnroll steps on:
        // loading first needs a copy, four registers more, and ptxas then spilled 28 bytes and more
        // (measured 3% slower end to end, docs/BENCHMARKS.md).
        const uint4 cur = buf[u];
        if (step < my_steps) {
          const uint4 xa = x_step[0], xb = x_step[1];
          const uint32_t words[4] = {cur.x, cur.y, cur.z, cur.w};
          const uint32_t xw[8] = {xa.x, xa.y, xa.z, xa.w, xb.x, xb.y, xb.z, xb.w};
          // The bias's four MMAs first: they need only the activations, so they run while the weights
          // are still on their way, and the chain that waits for the weights is four MMAs, not eight.
          float d[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
          for (int s = 0; s < 4; ++s) {
            MmaBf16(d, kMinus136, kMinus136, kMinus136, kMinus136, xw[2 * s], xw[2 * s + 1]);
          }
#pragma unroll
          for (int s = 0; s < 4; ++s) {
            uint32_t b[4];
            DequantWordBiased(words[s], b);
            MmaBf16(d, b[0], b[2], b[1], b[3], xw[2 * s], xw[2 * s + 1]);
          }
          // d: e = 0, 1 -> column q, rows 2c, 2c + 1; e = 2, 3 -> column q + 8.
          const float s0 = Bf16BitsToFloat(sc_step[0]), s8 = Bf16BitsToFloat(sc_step[8]);
          acc[0] += d[0] * s0;
          acc[1] += d[1] * s0;
          acc[2] += d[2] * s8;
          acc[3] += d[3] * s8;
        }
        x_step += kWarps * 8;
        sc_step += sc_stride;
        load_next(buf[u]);
        if (++step == block_steps) {
          FinishStackBlock(g, slice, blockIdx.x + block * gridDim.x, acc, warp_sums);
          // Every warp is past block `block`: its scale buffer takes block + 2's.
          if (block + 2 < blocks) copy_scales(block + 2);
          step = 0;
          ++block;
          block_scales = scale_s + (block % 2) * groups * 16 + q;
          x_step = x_first;
          sc_step = block_scales + sc_first;
        }
      }
    }
  }
}

}  // namespace

// m staged rows of k_slice + 8 bf16, and two buffers of 16 bf16 scales for each of up to k_slice / 128 groups.
size_t W4A16StackSmemBytes(int m, int k_slice) {
  return static_cast<size_t>(m) * (k_slice + 8) * 2 + static_cast<size_t>(k_slice / 128) * 2 * 16 * 2;
}

// A CTA per column block and slice; an unsplit call with more blocks than one wave holds runs one wave.
cudaError_t LaunchW4A16Stack(const W4A16LaunchParams& g, cudaStream_t stream) {
  const size_t smem = W4A16StackSmemBytes(g.p.m, g.k_slice);
  int ctas = g.p.n / 16;
  if (g.slices == 1) {
    int resident = 0;
    const cudaError_t err = attention::ResidentCtas<W4A16StackKernel>(kWarps * 32, smem, resident);
    if (err != cudaSuccess) return err;
    if (resident > 0) ctas = std::min(ctas, resident);
  }
  return LaunchDependent(W4A16StackKernel, dim3(ctas, g.slices), dim3(kWarps * 32), smem, stream, g);
}

// K split into no more slices than keep the grid (16-column blocks times slices) within the one wave of
// CTAs the SMs hold at once (kStackCtasPerSm each), each slice at least twice what a CTA's first loads
// cover; but into as many as the staged rows and scales need to fit the form's shared memory, even
// where that makes more than a wave (28672 x 8192 at M = 1: two slices). On an H100 (docs/BENCHMARKS.md,
// "The stacked form's K split"), a slice more than fits made a second, partial wave (4096 x 6144: two
// slices, 768 CTAs for 528 places, 11.4 us against 9.4 unsplit), and slices of 2048 rows, whose
// weights the first loads nearly cover, paid the reduction and twice the staging for no streaming
// (4096 x 4096 with dependent launches: 7.7 us against 6.7 unsplit); slices of 7168 won (14336 x 4096:
// 17.1 against 18.2).
W4A16Split ChooseW4A16StackSplit(int m, int k, int n, int num_sms) {
  // W4A16StackSmemBytes(m, 128 t) = 256 m t + 16 m + 64 t <= the limit, solved for t.
  const int max_slice =
      std::max(128, static_cast<int>((kW4A16StackSmemLimit - 16 * m) / (256 * m + 64)) * 128);
  const int col_ctas = n / 16;
  constexpr int kMinSliceRows = 2 * kStackUnroll * kWarps * 64;
  const int wanted_slices = std::max(1, std::min(kStackCtasPerSm * num_sms / col_ctas, k / kMinSliceRows));
  int slice = (k / wanted_slices + 127) / 128 * 128;
  slice = std::clamp(slice, 128, std::min(max_slice, k));
  return W4A16Split{slice, (k + slice - 1) / slice, W4A16Form::kStack};
}

}  // namespace vt::kernels::cuda
