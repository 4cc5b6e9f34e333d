#include "kernels/cuda/ops/sampling.h"

#include <cfloat>
#include <string>

#include "kernels/cuda/bf16.cuh"
#include "kernels/seeded_uniform.h"

namespace vt::kernels::cuda {
namespace {

constexpr int kThreads = 1024;

// Logits rows are the forward's bf16, or float32 where AdjustLogitsRows changed their values.
__device__ __forceinline__ float LogitAt(const uint16_t* row, int i) { return Bf16BitsToFloat(row[i]); }
__device__ __forceinline__ float LogitAt(const float* row, int i) { return row[i]; }
__device__ __forceinline__ void MaskOut(uint16_t* row, int i) { row[i] = 0xff80; }  // bf16 -inf
__device__ __forceinline__ void MaskOut(float* row, int i) { row[i] = -INFINITY; }

// Order-preserving map of a float to uint32 (larger float, larger key), with -0.0 and +0.0 one
// key so that equal logits never fall on two sides of a cut. NaNs are excluded before keys matter.
__device__ __forceinline__ uint32_t Key(float f) {
  uint32_t u = __float_as_uint(f);
  if (u == 0x80000000u) u = 0;
  return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

// The largest key tau with measure(tokens with key >= tau) >= target, over the tokens `eligible`
// admits: a radix select, four passes of eight bits from the top byte down. Each pass histograms
// the measure of the eligible tokens that share the key prefix fixed so far over their next byte,
// then walks the bins from the top, adding what lies above, to the bin where the running measure
// first reaches the target. After the last byte tau is the key of the token where the measure from
// the top crosses the target: measure(>= tau) >= target > measure(>= tau + 1). Every thread calls
// it; `hist` is 256 shared doubles and `chosen` one shared int.
template <typename T, typename Eligible, typename Measure>
__device__ uint32_t RadixSelect(const T* row, int vocab, double target, Eligible eligible, Measure measure,
                                double* hist, int* chosen) {
  uint32_t prefix = 0;
  double above = 0.0;  // the measure of eligible tokens with a key above the current prefix range
  for (int shift = 24; shift >= 0; shift -= 8) {
    for (int b = threadIdx.x; b < 256; b += kThreads) hist[b] = 0.0;
    __syncthreads();
    const uint32_t high_mask = shift == 24 ? 0u : ~0u << (shift + 8);
    for (int i = threadIdx.x; i < vocab; i += kThreads) {
      const float l = LogitAt(row, i);
      if (!eligible(l)) continue;
      const uint32_t key = Key(l);
      if ((key & high_mask) != prefix) continue;
      atomicAdd(&hist[(key >> shift) & 0xffu], double(measure(l)));
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      int b = 255;
      for (; b > 0; --b) {
        if (above + hist[b] >= target) break;
        above += hist[b];
      }
      *chosen = b;  // bin 0 when the target is only reached with everything (rounding at the bottom)
    }
    __syncthreads();
    prefix |= uint32_t(*chosen) << shift;
    // Every thread's `above` follows thread 0's walk, in the same order, so all agree.
    if (threadIdx.x != 0) {
      for (int b = 255; b > *chosen; --b) above += hist[b];
    }
    __syncthreads();
  }
  return prefix;
}

// Block-wide reductions; every thread gets the result. `scratch` holds 32 values.
__device__ float BlockMax(float v, float* scratch) {
  for (int o = 16; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = v;
  __syncthreads();
  float r = -FLT_MAX;
  for (int w = 0; w < kThreads / 32; ++w) r = fmaxf(r, scratch[w]);
  __syncthreads();
  return r;
}
__device__ double BlockSum(double v, double* scratch) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = v;
  __syncthreads();
  double r = 0.0;
  for (int w = 0; w < kThreads / 32; ++w) r += scratch[w];
  __syncthreads();
  return r;
}

// One CTA per row. weight(i) = exp((l_i - max) / T), the unnormalised probability.
template <typename T>
__global__ void __launch_bounds__(kThreads) SampleRowsKernel(const T* logits, int vocab, const RowSampling* all_params, int32_t* out) {
  __shared__ double dscratch[32];
  __shared__ float fscratch[32];
  __shared__ double chunk_mass[kThreads];
  const RowSampling p = all_params[blockIdx.x];
  const T* row = logits + static_cast<int64_t>(blockIdx.x) * vocab;

  float local_max = -FLT_MAX;
  int local_arg = 0;
  for (int i = threadIdx.x; i < vocab; i += kThreads) {
    const float l = LogitAt(row, i);
    if (l > local_max) local_max = l, local_arg = i;
  }
  const float max_logit = BlockMax(local_max, fscratch);
  // The argmax (lowest id holding the maximum, as torch.argmax and the CPU sampler): the greedy
  // answer, and the answer whenever the row leaves nothing else to draw from.
  __shared__ int best;
  if (threadIdx.x == 0) best = vocab;
  __syncthreads();
  if (local_max == max_logit) atomicMin(&best, local_arg);
  __syncthreads();
  const int argmax = best < vocab ? best : 0;
  if (p.temperature <= 0.f || p.top_k == 1 || p.top_p <= 0.f || !isfinite(max_logit)) {
    if (threadIdx.x == 0) out[blockIdx.x] = argmax;
    return;
  }
  // The CPU divides by T; so does this (a tiny T must give the greedy token, not inf * 0).
  auto weight = [&](float l) { return expf((l - max_logit) / p.temperature); };

  // Every filter but top-p is a floor on the key. Tokens whose weight would underflow (more than
  // 87 T below the top) carry no probability; min-p keeps weight >= min_p, i.e. l >= max + T ln(min_p).
  uint32_t key_floor = Key(max_logit - 87.f * p.temperature);
  if (p.min_p > 0.f) key_floor = max(key_floor, Key(max_logit + p.temperature * logf(fminf(p.min_p, 1.f))));
  __shared__ double hist[256];
  __shared__ int chosen;
  auto kept = [&](float l) { return l == l && Key(l) >= key_floor; };
  if (p.top_k > 0 && p.top_k < vocab) {
    // The k-th largest kept key; fewer than k kept leaves the floor as it is.
    const uint32_t kth = RadixSelect(row, vocab, double(p.top_k), kept, [](float) { return 1.0f; }, hist, &chosen);
    key_floor = max(key_floor, kth);
  }

  // top-p: the largest key whose kept tokens at or above it hold at least top_p of the kept mass.
  if (p.top_p < 1.f) {
    double mass = 0.0;
    for (int i = threadIdx.x; i < vocab; i += kThreads) {
      const float l = LogitAt(row, i);
      if (kept(l)) mass += weight(l);
    }
    const double target = double(p.top_p) * BlockSum(mass, dscratch);
    key_floor = max(key_floor, RadixSelect(row, vocab, target, kept, weight, hist, &chosen));
  }

  // Inverse CDF over the kept tokens in id order: thread t owns ids [t * span, (t + 1) * span).
  const int span = (vocab + kThreads - 1) / kThreads;
  const int begin = threadIdx.x * span, end = min(vocab, begin + span);
  double mine = 0.0;
  for (int i = begin; i < end; ++i) {
    const float l = LogitAt(row, i);
    if (kept(l)) mine += weight(l);
  }
  chunk_mass[threadIdx.x] = mine;
  __syncthreads();
  if (threadIdx.x == 0) {
    double total = 0.0;
    for (int t = 0; t < kThreads; ++t) total += chunk_mass[t];
    const double target = SeededUniform(p.seed, p.token_index) * total;
    // The greedy token is always kept, so some chunk has mass; should rounding put the target at
    // the very top, the last chunk with mass takes it.
    double cumulative = 0.0, before_last = 0.0;
    int owner = -1, last_with_mass = 0;
    for (int t = 0; t < kThreads; ++t) {
      if (chunk_mass[t] > 0.0) last_with_mass = t, before_last = cumulative;
      if (target < cumulative + chunk_mass[t]) {
        owner = t;
        break;
      }
      cumulative += chunk_mass[t];
    }
    if (owner < 0) owner = last_with_mass, cumulative = before_last;
    // Walk the owner's ids; the last kept id absorbs rounding at the very top of the range.
    int token = -1;
    for (int i = owner * span; i < min(vocab, (owner + 1) * span); ++i) {
      const float l = LogitAt(row, i);
      if (!kept(l)) continue;
      token = i;
      cumulative += weight(l);
      if (target < cumulative) break;
    }
    out[blockIdx.x] = token >= 0 ? token : argmax;
  }
}

// One token per thread, so a warp's stores to a row are contiguous (a thread per 32-token word
// wrote with a 32-token stride across the warp and cost several times the row's bytes); the warp's
// 32 threads read one mask word, a broadcast.
template <typename T>
__global__ void MaskRowsKernel(T* logits, int vocab, const uint32_t* masks, const int32_t* mask_of_row) {
  const int mask = mask_of_row[blockIdx.y];
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (mask < 0 || t >= vocab) return;
  const int words = (vocab + 31) / 32;
  const uint32_t bits = masks[static_cast<int64_t>(mask) * words + t / 32];
  if (!((bits >> (t % 32)) & 1u)) MaskOut(logits + static_cast<int64_t>(blockIdx.y) * vocab, t);
}

template <typename T>
Status LaunchMaskRows(T* logits, int rows, int vocab, const uint32_t* masks, const int32_t* mask_of_row,
                      cudaStream_t stream) {
  if (rows == 0) return Status::Ok();
  constexpr int kTokensPerBlock = 256;
  const dim3 grid((vocab + kTokensPerBlock - 1) / kTokensPerBlock, rows);
  MaskRowsKernel<T><<<grid, kTokensPerBlock, 0, stream>>>(logits, vocab, masks, mask_of_row);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return Internal(std::string("mask rows: ") + cudaGetErrorString(err));
  return Status::Ok();
}

template <typename T>
Status LaunchSampleRows(const T* logits, int rows, int vocab, const RowSampling* params, int32_t* out,
                        cudaStream_t stream) {
  if (rows == 0) return Status::Ok();
  SampleRowsKernel<T><<<rows, kThreads, 0, stream>>>(logits, vocab, params, out);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return Internal(std::string("sample rows: ") + cudaGetErrorString(err));
  return Status::Ok();
}

}  // namespace

Status MaskRows(uint16_t* logits, int rows, int vocab, const uint32_t* masks, const int32_t* mask_of_row,
                cudaStream_t stream) {
  return LaunchMaskRows(logits, rows, vocab, masks, mask_of_row, stream);
}

Status MaskRows(float* logits, int rows, int vocab, const uint32_t* masks, const int32_t* mask_of_row,
                cudaStream_t stream) {
  return LaunchMaskRows(logits, rows, vocab, masks, mask_of_row, stream);
}

Status SampleRows(const uint16_t* logits, int rows, int vocab, const RowSampling* params, int32_t* out,
                  cudaStream_t stream) {
  return LaunchSampleRows(logits, rows, vocab, params, out, stream);
}

Status SampleRows(const float* logits, int rows, int vocab, const RowSampling* params, int32_t* out,
                  cudaStream_t stream) {
  return LaunchSampleRows(logits, rows, vocab, params, out, stream);
}

}  // namespace vt::kernels::cuda
