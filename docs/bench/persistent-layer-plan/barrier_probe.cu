// The first probe of PLAN.md: what a grid-wide barrier costs on one persistent wave of an H100/H200,
// alone and with every CTA streaming weights between barriers. Not part of vt; built and run by hand:
//
//   /usr/local/cuda/bin/nvcc -O3 -std=c++17 -arch=sm_90 -o barrier_probe barrier_probe.cu      (here)
//   ./barrier_probe                                                                              (there)
//
// Prints, for each CTA count an SM (1-3) and bytes streamed a CTA between barriers (0, 8 KiB,
// 32 KiB): microseconds a round with a counter barrier, with cooperative_groups' grid sync, and
// with no barrier (the streaming alone), each the median of 5 timed launches of 2,000 rounds.
#include <cooperative_groups.h>
#include <cuda/atomic>

#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <vector>

namespace cg = cooperative_groups;

enum class Sync { kCounter, kCooperative, kNone };

// A sense-reversing counter barrier: the last CTA to arrive resets the count and bumps the
// generation; the others spin on the generation with acquire loads.
__device__ __forceinline__ void CounterBarrier(unsigned* count, unsigned* generation, unsigned ctas) {
  __syncthreads();
  if (threadIdx.x == 0) {
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> gen(*generation), arrived(*count);
    const unsigned g = gen.load(cuda::memory_order_relaxed);
    if (arrived.fetch_add(1, cuda::memory_order_acq_rel) == ctas - 1) {
      arrived.store(0, cuda::memory_order_relaxed);
      gen.store(g + 1, cuda::memory_order_release);
    } else {
      while (gen.load(cuda::memory_order_acquire) == g) {
      }
    }
  }
  __syncthreads();
}

constexpr int kLoadsInFlight = 8;  // 16-byte loads a thread issues before using any, as the skinny GEMM's lanes

// Each round a CTA reads `bytes` of its own slice of `weights` (streaming loads, eight a thread in
// flight) and then meets the others. The sum keeps the loads alive. `weight_vecs` is a power of two.
template <Sync S>
__global__ void Rounds(const uint4* weights, size_t weight_vecs, int bytes, int rounds, unsigned* count,
                       unsigned* generation, unsigned* sink) {
  const int vecs = bytes / 16;
  const size_t mask = weight_vecs - 1;
  unsigned acc = 0;
  size_t at = (size_t(blockIdx.x) * vecs) & mask;
  for (int r = 0; r < rounds; ++r) {
    for (int v0 = threadIdx.x; v0 < vecs; v0 += blockDim.x * kLoadsInFlight) {
      uint4 w[kLoadsInFlight];
#pragma unroll
      for (int u = 0; u < kLoadsInFlight; ++u) {
        const int v = v0 + u * blockDim.x;
        w[u] = v < vecs ? __ldcs(weights + ((at + v) & mask)) : make_uint4(0, 0, 0, 0);
      }
#pragma unroll
      for (int u = 0; u < kLoadsInFlight; ++u) acc ^= w[u].x ^ w[u].y ^ w[u].z ^ w[u].w;
    }
    at = (at + size_t(gridDim.x) * vecs) & mask;
    if constexpr (S == Sync::kCounter) CounterBarrier(count, generation, gridDim.x);
    if constexpr (S == Sync::kCooperative) cg::this_grid().sync();
  }
  if (acc == 0x12345678u) atomicAdd(sink, 1u);
}

template <Sync S>
float TimeRounds(int ctas, int threads, const uint4* weights, size_t weight_vecs, int bytes, int rounds,
                 unsigned* count, unsigned* generation, unsigned* sink) {
  void* args[] = {&weights, &weight_vecs, &bytes, &rounds, &count, &generation, &sink};
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<float> ms;
  for (int t = 0; t < 6; ++t) {  // the first launch warms up and is not counted
    cudaEventRecord(start);
    const cudaError_t launched =
        cudaLaunchCooperativeKernel(reinterpret_cast<void*>(Rounds<S>), ctas, threads, args, 0, nullptr);
    cudaEventRecord(stop);
    const cudaError_t ran = cudaEventSynchronize(stop);
    if (launched != cudaSuccess || ran != cudaSuccess) {
      std::fprintf(stderr, "barrier_probe: %d CTAs: %s\n", ctas,
                   cudaGetErrorString(launched != cudaSuccess ? launched : ran));
      std::exit(1);
    }
    float m = 0.f;
    cudaEventElapsedTime(&m, start, stop);
    if (t > 0) ms.push_back(m);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2] * 1000.f / rounds;
}

int main() {
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
    std::fprintf(stderr, "barrier_probe: no CUDA device\n");
    return 1;
  }
  const int threads = 256, rounds = 2000;
  const size_t weight_bytes = size_t(1) << 30;  // past the L2, so the streams come from HBM; a power of two
  uint4* weights = nullptr;
  unsigned *count = nullptr, *generation = nullptr, *sink = nullptr;
  if (cudaMalloc(&weights, weight_bytes) != cudaSuccess || cudaMalloc(&count, 4) != cudaSuccess ||
      cudaMalloc(&generation, 4) != cudaSuccess || cudaMalloc(&sink, 4) != cudaSuccess) {
    std::fprintf(stderr, "barrier_probe: out of memory\n");
    return 1;
  }
  cudaMemset(weights, 1, weight_bytes);
  cudaMemset(count, 0, 4);
  cudaMemset(generation, 0, 4);
  std::printf("%s, %d SMs; %d threads a CTA, %d rounds a launch, us a round (median of 5 launches)\n", prop.name,
              prop.multiProcessorCount, threads, rounds);
  std::printf("ctas/SM  KiB/CTA  counter  cooperative  none   counter-none  GB/s(none)\n");
  for (int per_sm = 1; per_sm <= 3; ++per_sm) {
    const int ctas = per_sm * prop.multiProcessorCount;
    for (int kib : {0, 8, 32}) {
      const int bytes = kib * 1024;
      const size_t vecs = weight_bytes / 16;
      const float counter = TimeRounds<Sync::kCounter>(ctas, threads, weights, vecs, bytes, rounds, count, generation, sink);
      const float coop = TimeRounds<Sync::kCooperative>(ctas, threads, weights, vecs, bytes, rounds, count, generation, sink);
      const float none = TimeRounds<Sync::kNone>(ctas, threads, weights, vecs, bytes, rounds, count, generation, sink);
      const double gbs = none > 0 ? double(ctas) * bytes / (none * 1e3) : 0.0;
      std::printf("%7d  %7d  %7.2f  %11.2f  %5.2f  %12.2f  %10.0f\n", per_sm, kib, counter, coop, none, counter - none, gbs);
    }
  }
  const cudaError_t err = cudaDeviceSynchronize();
  if (err != cudaSuccess) {
    std::fprintf(stderr, "barrier_probe: %s\n", cudaGetErrorString(err));
    return 1;
  }
  return 0;
}
