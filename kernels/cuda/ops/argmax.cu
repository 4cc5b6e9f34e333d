#include "kernels/cuda/ops/argmax.h"

#include <algorithm>
#include <cfloat>
#include <string>

#include "kernels/cuda/bf16.cuh"
#include "kernels/cuda/dependent_launch.h"
#include "kernels/device_alignment.h"

namespace vt::kernels::cuda {
namespace {

constexpr int kThreads = 256;
// A slice is at most this many loads of each of its threads, all of them in flight at once.
constexpr int kLoadsPerThread = 4;
// Slices a row: one warp of the row's last CTA folds their maxima.
constexpr int kMaxSlices = 32;

// A row's block of the workspace, at the same place whatever a call's row count: a call of more
// rows than the call before it finds every ticket where the earlier calls left it at zero.
struct RowSlices {
  unsigned ticket;
  float values[kMaxSlices];  // each slice's maximum
  int indices[kMaxSlices];   // and its first index
};

__device__ __forceinline__ float LogitAt(const float* row, int c) { return row[c]; }
__device__ __forceinline__ float LogitAt(const uint16_t* row, int c) { return Bf16BitsToFloat(row[c]); }

// Folds logit `x` at index `c` into a thread's running maximum; a thread's indices arrive in
// increasing order, so a strict > keeps the first maximum (NaN never wins).
__device__ __forceinline__ void Consider(float x, int c, float& v, int& idx) {
  if (x > v) v = x, idx = c;
}

// Folds another running maximum into this one: the larger value, the lower index on ties.
__device__ __forceinline__ void Fold(float ov, int oi, float& v, int& idx) {
  if (ov > v || (ov == v && oi < idx)) v = ov, idx = oi;
}

__device__ __forceinline__ void FoldWarp(float& v, int& idx) {
  for (int o = 16; o > 0; o /= 2) {
    const float ov = __shfl_xor_sync(0xffffffffu, v, o);
    const int oi = __shfl_xor_sync(0xffffffffu, idx, o);
    Fold(ov, oi, v, idx);
  }
}

// Grid: `slices` CTAs a row, along x. A slice is a contiguous run of the row's units: eight-logit
// loads where `vec` (bf16 rows 16-byte aligned, vocab % 8 == 0), single logits otherwise. Each CTA
// folds its slice into one maximum; with one slice it writes the row's token, otherwise it leaves the
// maximum in the row's block and takes a ticket, and the row's last CTA folds the slices' maxima in
// one warp. Max with the lowest index on ties gives the same token whatever the slicing, the order of
// the folds and whichever CTA comes last.
template <typename Logit>
__global__ void __launch_bounds__(kThreads)
    ArgmaxKernel(const Logit* __restrict__ logits, int vocab, bool vec, int slices, RowSlices* rows_slices,
                 int32_t* out) {
  AwaitPrecedingGrid();
  __shared__ float warp_v[kThreads / 32];
  __shared__ int warp_i[kThreads / 32];
  __shared__ bool last_of_row;
  const int row = blockIdx.x / slices, slice = blockIdx.x % slices;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const Logit* row_logits = logits + static_cast<int64_t>(row) * vocab;
  const int units = vec ? vocab / kBf16Vec : vocab;
  const int per_slice = (units + slices - 1) / slices;
  const int begin = slice * per_slice, end = min(units, begin + per_slice);

  float v = -FLT_MAX;
  int idx = 0;  // all-NaN or all -inf rows give token 0, never an index past the vocabulary
  if constexpr (sizeof(Logit) == 2) {
    if (vec) {
      const Bf16x8* loads = reinterpret_cast<const Bf16x8*>(row_logits);
#pragma unroll(kLoadsPerThread)
      for (int k = begin + threadIdx.x; k < end; k += kThreads) {
        const Bf16x8 x = loads[k];
        for (int i = 0; i < kBf16Vec; ++i) Consider(LogitAt(x.v, i), k * kBf16Vec + i, v, idx);
      }
    }
  }
  if (!vec) {
    for (int c = begin + threadIdx.x; c < end; c += kThreads) Consider(LogitAt(row_logits, c), c, v, idx);
  }

  FoldWarp(v, idx);
  if (lane == 0) warp_v[warp] = v, warp_i[warp] = idx;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < kThreads / 32; ++w) Fold(warp_v[w], warp_i[w], v, idx);
    if (slices == 1) {
      out[row] = idx;
    } else {
      RowSlices& mine = rows_slices[row];
      mine.values[slice] = v;
      mine.indices[slice] = idx;
      __threadfence();  // this slice's maximum is visible before its ticket
      last_of_row = atomicAdd(&mine.ticket, 1u) == unsigned(slices - 1);
      // The other slices fenced their maxima before their tickets: fenced after seeing them
      // counted, this CTA's reads below see the maxima (the barrier carries it to warp 0).
      if (last_of_row) __threadfence();
    }
  }
  if (slices == 1) return;
  __syncthreads();
  if (!last_of_row || warp != 0) return;
  const RowSlices& all = rows_slices[row];
  v = -FLT_MAX;
  idx = 0;
  if (lane < slices) {
    v = __ldcg(&all.values[lane]);
    idx = __ldcg(&all.indices[lane]);
  }
  FoldWarp(v, idx);
  if (lane == 0) {
    out[row] = idx;
    rows_slices[row].ticket = 0;  // the next call, or a graph's next replay, counts from zero
  }
}

Status Launched(cudaError_t err) {
  if (err != cudaSuccess) return Internal(std::string("argmax: ") + cudaGetErrorString(err));
  return Status::Ok();
}

}  // namespace

size_t ArgmaxWorkspaceBytes(int rows) { return size_t(rows) * sizeof(RowSlices); }

Status ArgmaxRows(const float* logits, int rows, int vocab, int32_t* out, cudaStream_t stream) {
  if (rows == 0) return Status::Ok();
  ArgmaxKernel<float><<<rows, kThreads, 0, stream>>>(logits, vocab, false, 1, nullptr, out);
  return Launched(cudaGetLastError());
}

Status ArgmaxRowsBf16(const uint16_t* logits, int rows, int vocab, int32_t* out, void* workspace,
                      cudaStream_t stream) {
  if (rows == 0) return Status::Ok();
  if (workspace == nullptr) return InvalidArgument("argmax: no workspace");
  const bool vec = vocab % kBf16Vec == 0 && VectorAligned(logits);
  const int units = vec ? vocab / kBf16Vec : vocab;
  const int slices =
      std::clamp((units + kThreads * kLoadsPerThread - 1) / (kThreads * kLoadsPerThread), 1, kMaxSlices);
  return Launched(LaunchDependent(ArgmaxKernel<uint16_t>, rows * slices, kThreads, 0, stream, logits, vocab,
                                  vec, slices, static_cast<RowSlices*>(workspace), out));
}

}  // namespace vt::kernels::cuda
