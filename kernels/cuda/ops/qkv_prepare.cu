#include "kernels/cuda/ops/qkv_prepare.h"

#include <string>

#include "kernels/cuda/bf16.cuh"
#include "kernels/cuda/dependent_launch.h"

namespace vt::kernels::cuda {
namespace {

constexpr int kWarpsPerCta = 4;

// Grid (tokens, head groups): one warp per head (q heads, then k heads, then v heads), so a
// decode step's single token still spreads over many SMs. Lane l holds the
// rotate-half pairs (j, j + D/2) for j = l, l + 32, ...: RoPE needs nothing from other lanes and
// the RMSNorm sum is one warp reduction. Rounding follows HF's bf16 path: the normalised value is
// rounded before the weight multiply, and RoPE's terms are bf16 (below). One difference: a bias
// is added to the GEMM's bf16 output and rounded again, where HF's addmm rounds once.
template <int kPairsPerLane>
__global__ void PrepareQkvKernel(QkvPrepareParams p) {
  constexpr int kHalf = kPairsPerLane * 32;
  constexpr int kHeadDim = 2 * kHalf;
  const int token = blockIdx.x;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int total_heads = p.num_q_heads + 2 * p.num_kv_heads;
  const int h = blockIdx.y * kWarpsPerCta + warp;
  const bool is_q = h < p.num_q_heads;
  const bool is_k = !is_q && h < p.num_q_heads + p.num_kv_heads;
  const uint16_t* norm = is_q ? p.q_norm : (is_k ? p.k_norm : nullptr);

  // What no kernel of the step writes is read before the wait, and arrives while the kernel before
  // ends: the token's position and slot (copied in before the step's first kernel), the norm weight
  // and the RoPE schedule, and from them the rotation's cosines and sines. HF's bf16 RoPE casts cos
  // and sin to bf16.
  int64_t slot = -1;
  float norm_a[kPairsPerLane], norm_b[kPairsPerLane], cos_j[kPairsPerLane], sin_j[kPairsPerLane];
  if (h < total_heads) {
    slot = p.slots[token];
    const float position = static_cast<float>(p.positions[token]);
    for (int i = 0; i < kPairsPerLane; ++i) {
      const int j = lane + 32 * i;
      if (norm) norm_a[i] = Bf16BitsToFloat(norm[j]), norm_b[i] = Bf16BitsToFloat(norm[j + kHalf]);
      if (is_q || is_k) {
        sincosf(position * p.inv_freq[j], &sin_j[i], &cos_j[i]);
        cos_j[i] = RoundToBf16(cos_j[i]);
        sin_j[i] = RoundToBf16(sin_j[i]);
      }
    }
  }
  AwaitPrecedingGrid();
  if (h >= total_heads) return;  // the launch gives every head one warp, and a few warps none

  const uint16_t* in = p.qkv + static_cast<int64_t>(token) * total_heads * kHeadDim + h * kHeadDim;
  const uint16_t* bias = p.bias ? p.bias + h * kHeadDim : nullptr;
  float a[kPairsPerLane], b[kPairsPerLane];
  float sum_sq = 0.f;
  for (int i = 0; i < kPairsPerLane; ++i) {
    const int j = lane + 32 * i;
    a[i] = Bf16BitsToFloat(in[j]);
    b[i] = Bf16BitsToFloat(in[j + kHalf]);
    if (bias) a[i] = RoundToBf16(a[i] + Bf16BitsToFloat(bias[j])), b[i] = RoundToBf16(b[i] + Bf16BitsToFloat(bias[j + kHalf]));
    sum_sq += a[i] * a[i] + b[i] * b[i];
  }
  if (norm) {
    for (int o = 16; o > 0; o /= 2) sum_sq += __shfl_xor_sync(0xffffffffu, sum_sq, o);
    const float inv_rms = rsqrtf(sum_sq / kHeadDim + p.eps);
    for (int i = 0; i < kPairsPerLane; ++i) {
      a[i] = RoundToBf16(RoundToBf16(a[i] * inv_rms) * norm_a[i]);
      b[i] = RoundToBf16(RoundToBf16(b[i] * inv_rms) * norm_b[i]);
    }
  }
  if (is_q || is_k) {
    // q * cos, rotate_half(q) * sin and their sum are each a bf16 tensor, as in HF.
    for (int i = 0; i < kPairsPerLane; ++i) {
      const float x = a[i], y = b[i];
      a[i] = RoundToBf16(RoundToBf16(x * cos_j[i]) - RoundToBf16(y * sin_j[i]));
      b[i] = RoundToBf16(RoundToBf16(y * cos_j[i]) + RoundToBf16(x * sin_j[i]));
    }
  }
  uint16_t* out;
  if (is_q) {
    out = p.q_out + (static_cast<int64_t>(token) * p.num_q_heads + h) * kHeadDim;
  } else {
    if (slot < 0) return;
    const int kv_head = is_k ? h - p.num_q_heads : h - p.num_q_heads - p.num_kv_heads;
    out = (is_k ? p.k_cache : p.v_cache) + (slot * p.num_kv_heads + kv_head) * kHeadDim;
  }
  for (int i = 0; i < kPairsPerLane; ++i) {
    const int j = lane + 32 * i;
    out[j] = FloatToBf16Bits(a[i]);
    out[j + kHalf] = FloatToBf16Bits(b[i]);
  }
}

}  // namespace

Status PrepareQkv(const QkvPrepareParams& p, cudaStream_t stream) {
  if ((p.q_norm == nullptr) != (p.k_norm == nullptr)) return InvalidArgument("qkv prepare: q_norm and k_norm go together");
  if (p.tokens == 0) return Status::Ok();
  const int total_heads = p.num_q_heads + 2 * p.num_kv_heads;
  const dim3 grid(p.tokens, (total_heads + kWarpsPerCta - 1) / kWarpsPerCta), block(32 * kWarpsPerCta);
  cudaError_t err = cudaSuccess;
  switch (p.head_dim) {
    case 64: err = LaunchDependent(PrepareQkvKernel<1>, grid, block, 0, stream, p); break;
    case 128: err = LaunchDependent(PrepareQkvKernel<2>, grid, block, 0, stream, p); break;
    case 256: err = LaunchDependent(PrepareQkvKernel<4>, grid, block, 0, stream, p); break;
    default: return Unimplemented("qkv prepare: head_dim " + std::to_string(p.head_dim) + " (64, 128 or 256 only)");
  }
  if (err != cudaSuccess) return Internal(std::string("qkv prepare: ") + cudaGetErrorString(err));
  return Status::Ok();
}

}  // namespace vt::kernels::cuda
