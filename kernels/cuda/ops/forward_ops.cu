#include "kernels/cuda/ops/forward_ops.h"

#include <cfloat>
#include <string>

#include "kernels/cuda/bf16.cuh"

namespace vt::kernels::cuda {
namespace {

Status Launched(const char* what) {
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return Internal(std::string(what) + ": " + cudaGetErrorString(err));
  return Status::Ok();
}

__global__ void EmbeddingKernel(const int32_t* ids, const uint16_t* table, int vocab, int hidden, uint16_t* out) {
  const int row = blockIdx.x;
  const int id = ids[row];
  for (int c = threadIdx.x; c < hidden; c += blockDim.x) {
    out[static_cast<int64_t>(row) * hidden + c] = (id >= 0 && id < vocab) ? table[static_cast<int64_t>(id) * hidden + c] : 0;
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

__global__ void AddRmsNormKernel(const uint16_t* x, uint16_t* residual, const uint16_t* weight, int dim, float eps,
                                 uint16_t* out) {
  __shared__ float scratch[32];
  const int64_t base = static_cast<int64_t>(blockIdx.x) * dim;
  float sum_sq = 0.f;
  for (int c = threadIdx.x; c < dim; c += blockDim.x) {
    float r = Bf16BitsToFloat(residual[base + c]);
    if (x != nullptr) {
      r += Bf16BitsToFloat(x[base + c]);
      const uint16_t rounded = FloatToBf16Bits(r);
      residual[base + c] = rounded;
      r = Bf16BitsToFloat(rounded);
    }
    sum_sq += r * r;
  }
  const float inv_rms = rsqrtf(BlockSum(sum_sq, scratch) / dim + eps);
  for (int c = threadIdx.x; c < dim; c += blockDim.x) {
    // As HF's bf16 RMSNorm: the normalised value is rounded to bf16 before the weight multiply.
    out[base + c] = FloatToBf16Bits(Bf16BitsToFloat(FloatToBf16Bits(Bf16BitsToFloat(residual[base + c]) * inv_rms)) * Bf16BitsToFloat(weight[c]));
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

__global__ void SiluMulKernel(const uint16_t* gate_up, int inter, uint16_t* out) {
  const int64_t row = blockIdx.x;
  for (int c = threadIdx.x; c < inter; c += blockDim.x) {
    const float g = Bf16BitsToFloat(gate_up[row * 2 * inter + c]);
    const float u = Bf16BitsToFloat(gate_up[row * 2 * inter + inter + c]);
    // As HF's bf16 MLP: silu(gate) is a bf16 tensor before it multiplies up.
    out[row * inter + c] = FloatToBf16Bits(Bf16BitsToFloat(FloatToBf16Bits(g / (1.f + expf(-g)))) * u);
  }
}

__device__ __forceinline__ float LogitAt(const float* row, int c) { return row[c]; }
__device__ __forceinline__ float LogitAt(const uint16_t* row, int c) { return Bf16BitsToFloat(row[c]); }

template <typename Logit>
__global__ void ArgmaxKernel(const Logit* logits, int vocab, int32_t* out) {
  __shared__ float best_v[32];
  __shared__ int best_i[32];
  const Logit* row = logits + static_cast<int64_t>(blockIdx.x) * vocab;
  float v = -FLT_MAX;
  int idx = 0;  // all-NaN or all -inf rows give token 0, never an index past the vocabulary
  for (int c = threadIdx.x; c < vocab; c += blockDim.x) {
    const float x = LogitAt(row, c);
    if (x > v) v = x, idx = c;  // strided per thread: the first maximum this thread sees
  }
  for (int o = 16; o > 0; o /= 2) {
    const float ov = __shfl_xor_sync(0xffffffffu, v, o);
    const int oi = __shfl_xor_sync(0xffffffffu, idx, o);
    if (ov > v || (ov == v && oi < idx)) v = ov, idx = oi;
  }
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) best_v[warp] = v, best_i[warp] = idx;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < blockDim.x / 32; ++w) {
      if (best_v[w] > v || (best_v[w] == v && best_i[w] < idx)) v = best_v[w], idx = best_i[w];
    }
    out[blockIdx.x] = idx;
  }
}

}  // namespace

Status EmbeddingLookup(const int32_t* ids, int n, const uint16_t* table, int vocab, int hidden, uint16_t* out,
                       cudaStream_t stream) {
  if (n == 0) return Status::Ok();
  EmbeddingKernel<<<n, 256, 0, stream>>>(ids, table, vocab, hidden, out);
  return Launched("embedding");
}

Status AddRmsNorm(const uint16_t* x, uint16_t* residual, const uint16_t* weight, int rows, int dim, float eps,
                  uint16_t* out, cudaStream_t stream) {
  if (rows == 0) return Status::Ok();
  AddRmsNormKernel<<<rows, 256, 0, stream>>>(x, residual, weight, dim, eps, out);
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
  SiluMulKernel<<<rows, 256, 0, stream>>>(gate_up, inter, out);
  return Launched("silu_mul");
}

Status ArgmaxRows(const float* logits, int rows, int vocab, int32_t* out, cudaStream_t stream) {
  if (rows == 0) return Status::Ok();
  ArgmaxKernel<<<rows, 256, 0, stream>>>(logits, vocab, out);
  return Launched("argmax");
}

Status ArgmaxRowsBf16(const uint16_t* logits, int rows, int vocab, int32_t* out, cudaStream_t stream) {
  if (rows == 0) return Status::Ok();
  ArgmaxKernel<<<rows, 256, 0, stream>>>(logits, vocab, out);
  return Launched("argmax");
}

}  // namespace vt::kernels::cuda
