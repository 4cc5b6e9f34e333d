#include "kernels/cuda/ops/forward_ops.h"

#include <string>

#include "kernels/cuda/bf16.cuh"
#include "kernels/cuda/dependent_launch.h"
#include "kernels/cuda/ops/silu_times.cuh"
#include "kernels/device_alignment.h"

namespace vt::kernels::cuda {
namespace {

// `err`: a LaunchDependent's result; by default, what a <<<>>> launch left.
Status Launched(const char* what, cudaError_t err = cudaGetLastError()) {
  if (err != cudaSuccess) return Internal(std::string(what) + ": " + cudaGetErrorString(err));
  return Status::Ok();
}

// Grid (rows, column tiles of 256 threads): each thread copies one element, or eight when `vec`.
__global__ void EmbeddingKernel(const int32_t* __restrict__ ids, const uint16_t* __restrict__ table, int first_id,
                                int vocab, int hidden, bool vec, uint16_t* __restrict__ out) {
  const int row = blockIdx.x;
  const int id = ids[row] - first_id;
  const bool valid = id >= 0 && id < vocab;
  const int c = (blockIdx.y * blockDim.x + threadIdx.x) * (vec ? kBf16Vec : 1);
  if (c >= hidden) return;
  uint16_t* dst = out + static_cast<int64_t>(row) * hidden + c;
  const uint16_t* src = table + static_cast<int64_t>(id) * hidden + c;
  if (vec) {
    *reinterpret_cast<Bf16x8*>(dst) = valid ? *reinterpret_cast<const Bf16x8*>(src) : Bf16x8{};
  } else {
    *dst = valid ? *src : 0;
  }
}

// Block-wide sum of one float per thread; every thread gets the result.
__device__ float BlockSum(float v, float* scratch) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  float total = 0.f;
  for (int w = 0; w < (blockDim.x + 31) / 32; ++w) total += scratch[w];
  __syncthreads();
  return total;
}

// As HF's bf16 RMSNorm: the normalised value is rounded to bf16 before the weight multiply.
__device__ __forceinline__ uint16_t NormScale(float r, float inv_rms, uint16_t weight) {
  return FloatToBf16Bits(RoundToBf16(r * inv_rms) * Bf16BitsToFloat(weight));
}

// The residual add in HF's bf16 stream: the sum is stored rounded and used rounded.
__device__ __forceinline__ float AddRounded(uint16_t residual, uint16_t x, uint16_t* stored) {
  *stored = FloatToBf16Bits(Bf16BitsToFloat(residual) + Bf16BitsToFloat(x));
  return Bf16BitsToFloat(*stored);
}

// One CTA per row with dim / 8 threads (dim % 8 == 0, dim <= 8 * 1024, 16-byte aligned rows): each
// thread holds its eight values in registers between the sum and the scaling, so a row costs one
// load latency instead of one per loop trip.
__global__ void AddRmsNormVecKernel(const uint16_t* __restrict__ x, uint16_t* __restrict__ residual,
                                    const uint16_t* __restrict__ weight, int dim, float eps,
                                    uint16_t* __restrict__ out) {
  AwaitPrecedingGrid();
  __shared__ float scratch[32];
  const int64_t at = static_cast<int64_t>(blockIdx.x) * dim + threadIdx.x * kBf16Vec;
  const bool active = threadIdx.x * kBf16Vec < dim;
  Bf16x8 r{}, w{};
  float v[kBf16Vec] = {};
  float sum_sq = 0.f;
  if (active) {
    r = *reinterpret_cast<const Bf16x8*>(residual + at);
    w = *reinterpret_cast<const Bf16x8*>(weight + threadIdx.x * kBf16Vec);
    if (x != nullptr) {
      const Bf16x8 d = *reinterpret_cast<const Bf16x8*>(x + at);
      for (int i = 0; i < kBf16Vec; ++i) AddRounded(r.v[i], d.v[i], &r.v[i]);
      *reinterpret_cast<Bf16x8*>(residual + at) = r;
    }
    for (int i = 0; i < kBf16Vec; ++i) {
      v[i] = Bf16BitsToFloat(r.v[i]);
      sum_sq += v[i] * v[i];
    }
  }
  const float inv_rms = rsqrtf(BlockSum(sum_sq, scratch) / dim + eps);
  if (!active) return;
  Bf16x8 o;
  for (int i = 0; i < kBf16Vec; ++i) o.v[i] = NormScale(v[i], inv_rms, w.v[i]);
  *reinterpret_cast<Bf16x8*>(out + at) = o;
}

// Any other shape: one CTA per row, strided.
__global__ void AddRmsNormKernel(const uint16_t* x, uint16_t* residual, const uint16_t* weight, int dim, float eps,
                                 uint16_t* out) {
  __shared__ float scratch[32];
  const int64_t base = static_cast<int64_t>(blockIdx.x) * dim;
  float sum_sq = 0.f;
  for (int c = threadIdx.x; c < dim; c += blockDim.x) {
    const float r = x != nullptr ? AddRounded(residual[base + c], x[base + c], &residual[base + c])
                                 : Bf16BitsToFloat(residual[base + c]);
    sum_sq += r * r;
  }
  const float inv_rms = rsqrtf(BlockSum(sum_sq, scratch) / dim + eps);
  for (int c = threadIdx.x; c < dim; c += blockDim.x) {
    out[base + c] = NormScale(Bf16BitsToFloat(residual[base + c]), inv_rms, weight[c]);
  }
}

__global__ void RopeKernel(uint16_t* x, const int32_t* positions, const float* inv_freq, int heads, int head_dim) {
  const int row = blockIdx.x, half = head_dim / 2;
  const float pos = static_cast<float>(positions[row]);
  for (int i = threadIdx.x; i < heads * half; i += blockDim.x) {
    const int h = i / half, j = i % half;
    const float angle = pos * inv_freq[j];
    float s, c;
    sincosf(angle, &s, &c);
    uint16_t* head = x + (static_cast<int64_t>(row) * heads + h) * head_dim;
    const float a = Bf16BitsToFloat(head[j]), b = Bf16BitsToFloat(head[j + half]);
    head[j] = FloatToBf16Bits(a * c - b * s);
    head[j + half] = FloatToBf16Bits(b * c + a * s);
  }
}

// One thread per output element, or per eight when `vec` (inter % 8 == 0, aligned rows), over the
// whole [rows, inter] output: a decode step's single row still spreads over many CTAs.
__global__ void SiluMulKernel(const uint16_t* __restrict__ gate_up, int rows, int inter, bool vec,
                              uint16_t* __restrict__ out) {
  AwaitPrecedingGrid();
  const int width = vec ? kBf16Vec : 1;
  const int64_t per_row = inter / width;
  const int64_t item = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (item >= per_row * rows) return;
  const int64_t row = item / per_row, c = (item % per_row) * width;
  const uint16_t* gate = gate_up + row * 2 * inter + c;
  uint16_t* dst = out + row * inter + c;
  if (vec) {
    const Bf16x8 g = *reinterpret_cast<const Bf16x8*>(gate), u = *reinterpret_cast<const Bf16x8*>(gate + inter);
    Bf16x8 o;
    for (int i = 0; i < kBf16Vec; ++i) o.v[i] = SiluTimes(g.v[i], u.v[i]);
    *reinterpret_cast<Bf16x8*>(dst) = o;
  } else {
    *dst = SiluTimes(gate[0], gate[inter]);
  }
}

constexpr int kTileThreads = 256;

}  // namespace

Status EmbeddingLookup(const int32_t* ids, int n, const uint16_t* table, int vocab, int hidden, uint16_t* out,
                       cudaStream_t stream, int first_id) {
  if (n == 0) return Status::Ok();
  const bool vec = hidden % kBf16Vec == 0 && VectorAligned(table) && VectorAligned(out);
  const int per_row = vec ? hidden / kBf16Vec : hidden;
  const dim3 grid(n, (per_row + kTileThreads - 1) / kTileThreads);
  // A plain launch: the step's first kernel follows the copy of its inputs, not a kernel.
  EmbeddingKernel<<<grid, kTileThreads, 0, stream>>>(ids, table, first_id, vocab, hidden, vec, out);
  return Launched("embedding");
}

Status AddRmsNorm(const uint16_t* x, uint16_t* residual, const uint16_t* weight, int rows, int dim, float eps,
                  uint16_t* out, cudaStream_t stream) {
  if (rows == 0) return Status::Ok();
  const bool vec = dim % kBf16Vec == 0 && dim <= kBf16Vec * 1024 && VectorAligned(x) &&
                   VectorAligned(residual) && VectorAligned(weight) && VectorAligned(out);
  if (vec) {
    const int threads = (dim / kBf16Vec + 31) / 32 * 32;
    return Launched("add_rms_norm", LaunchDependent(AddRmsNormVecKernel, rows, threads, 0, stream, x, residual,
                                                    weight, dim, eps, out));
  } else {
    AddRmsNormKernel<<<rows, 256, 0, stream>>>(x, residual, weight, dim, eps, out);
  }
  return Launched("add_rms_norm");
}

Status ApplyRope(uint16_t* x, const int32_t* positions, const float* inv_freq, int n, int heads, int head_dim,
                 cudaStream_t stream) {
  if (head_dim % 2 != 0) return InvalidArgument("rope: head_dim must be even");
  if (n == 0) return Status::Ok();
  RopeKernel<<<n, 256, 0, stream>>>(x, positions, inv_freq, heads, head_dim);
  return Launched("rope");
}

Status SiluMul(const uint16_t* gate_up, int rows, int inter, uint16_t* out, cudaStream_t stream) {
  if (rows == 0) return Status::Ok();
  const bool vec = inter % kBf16Vec == 0 && VectorAligned(gate_up) && VectorAligned(out);
  const int64_t items = int64_t(rows) * (vec ? inter / kBf16Vec : inter);
  return Launched("silu_mul", LaunchDependent(SiluMulKernel, unsigned((items + kTileThreads - 1) / kTileThreads),
                                              kTileThreads, 0, stream, gate_up, rows, inter, vec, out));
}

}  // namespace vt::kernels::cuda
