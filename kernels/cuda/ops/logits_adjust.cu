#include "kernels/cuda/ops/logits_adjust.h"

#include <string>

#include "kernels/cuda/bf16.cuh"

namespace vt::kernels::cuda {
namespace {

constexpr int kThreads = 512;

// One CTA per row. The lists apply one after another, a barrier between each, as on the host;
// within the masked, repeated and counted lists every token is distinct, so their entries apply in
// parallel. Bias entries may repeat a token, so one thread adds them in pool order.
__global__ void __launch_bounds__(kThreads)
    AdjustLogitsRowsKernel(const uint16_t* logits, int vocab, const RowAdjust* all, const AdjustEntry* entries,
                           float* out) {
  const RowAdjust a = all[blockIdx.x];
  const uint16_t* in = logits + static_cast<int64_t>(blockIdx.x) * vocab;
  float* row = out + static_cast<int64_t>(blockIdx.x) * vocab;
  for (int i = threadIdx.x; i < vocab; i += kThreads) row[i] = Bf16BitsToFloat(in[i]);
  if (a.end == a.masked) return;  // uniform across the CTA: no barrier is skipped by some threads only
  __syncthreads();
  for (int e = a.masked + threadIdx.x; e < a.bias; e += kThreads) row[entries[e].token] = -INFINITY;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int e = a.bias; e < a.repeated; ++e) {
      float& l = row[entries[e].token];
      l = __fadd_rn(l, entries[e].value);
    }
  }
  __syncthreads();
  for (int e = a.repeated + threadIdx.x; e < a.counted; e += kThreads) {
    float& l = row[entries[e].token];
    l = l > 0.0f ? __fdiv_rn(l, a.repetition_penalty) : __fmul_rn(l, a.repetition_penalty);
  }
  __syncthreads();
  for (int e = a.counted + threadIdx.x; e < a.end; e += kThreads) {
    float& l = row[entries[e].token];
    l = __fsub_rn(l, __fadd_rn(__fmul_rn(a.frequency_penalty, entries[e].value), a.presence_penalty));
  }
}

}  // namespace

Status AdjustLogitsRows(const uint16_t* logits, int rows, int vocab, const RowAdjust* adjust,
                        const AdjustEntry* entries, float* out, cudaStream_t stream) {
  if (rows == 0) return Status::Ok();
  AdjustLogitsRowsKernel<<<rows, kThreads, 0, stream>>>(logits, vocab, adjust, entries, out);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return Internal(std::string("adjust logits rows: ") + cudaGetErrorString(err));
  return Status::Ok();
}

}  // namespace vt::kernels::cuda
