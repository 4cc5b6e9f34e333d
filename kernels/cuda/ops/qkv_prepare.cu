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
  AwaitPrecedingGrid();
  constexpr int kHalf = kPairsPerLane * 32;
  constexpr int kHeadDim = 2 * kHalf;
  const int token = blockIdx.x;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int total_heads = p.num_q_heads + 2 * p.num_kv_heads;
  const int qkv_width = total_heads * kHeadDim;
  const float position = static_cast<float>(p.positions[token]);
  const int64_t slot = p.slots[token];
  for (int h = blockIdx.y * kWarpsPerCta + warp; h < total_heads; h += kWarpsPerCta * gridDim.y) {
    const bool is_q = h < p.num_q_heads;
    const bool is_k = !is_q && h < p.num_q_heads + p.num_kv_heads;
    const uint16_t* in = p.qkv + static_cast<int64_t>(token) * qkv_width + h * kHeadDim;
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
    const uint16_t* norm = is_q ? p.q_norm : (is_k ? p.k_norm : nullptr);
    if (norm) {
      for (int o = 16; o > 0; o /= 2) sum_sq += __shfl_xor_sync(0xffffffffu, sum_sq, o);
      const float inv_rms = rsqrtf(sum_sq / kHeadDim + p.eps);
      for (int i = 0; i < kPairsPerLane; ++i) {
        const int j = lane + 32 * i;
        a[i] = RoundToBf16(RoundToBf16(a[i] * inv_rms) * Bf16BitsToFloat(norm[j]));
        b[i] = RoundToBf16(RoundToBf16(b[i] * inv_rms) * Bf16BitsToFloat(norm[j + kHalf]));
      }
    }
    if (is_q || is_k) {
      // HF's bf16 RoPE: cos and sin are cast to bf16, and q * cos, rotate_half(q) * sin and their
      // sum are each a bf16 tensor.
      for (int i = 0; i < kPairsPerLane; ++i) {
        float s, c;
        sincosf(position * p.inv_freq[lane + 32 * i], &s, &c);
        c = RoundToBf16(c);
        s = RoundToBf16(s);
        const float x = a[i], y = b[i];
        a[i] = RoundToBf16(RoundToBf16(x * c) - RoundToBf16(y * s));
        b[i] = RoundToBf16(RoundToBf16(y * c) + RoundToBf16(x * s));
      }
    }
    uint16_t* out;
    if (is_q) {
      out = p.q_out + (static_cast<int64_t>(token) * p.num_q_heads + h) * kHeadDim;
    } else {
      if (slot < 0) continue;
      const int kv_head = is_k ? h - p.num_q_heads : h - p.num_q_heads - p.num_kv_heads;
      out = (is_k ? p.k_cache : p.v_cache) + (slot * p.num_kv_heads + kv_head) * kHeadDim;
    }
    for (int i = 0; i < kPairsPerLane; ++i) {
      const int j = lane + 32 * i;
      out[j] = FloatToBf16Bits(a[i]);
      out[j + kHalf] = FloatToBf16Bits(b[i]);
    }
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
