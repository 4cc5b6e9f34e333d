#include "kernels/cuda/bench/bench_common.h"

#include <algorithm>
#include <cstdio>

namespace vt::kernels::cuda::bench {
namespace {

__device__ __forceinline__ uint32_t Hash(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

__global__ void FillBf16Kernel(uint16_t* dst, size_t n, uint32_t seed, float scale) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const uint32_t x = Hash(static_cast<uint32_t>(i) * 2654435761u ^ seed);
    const float f = ((x >> 8) * (2.f / 16777216.f) - 1.f) * scale;
    dst[i] = static_cast<uint16_t>(__float_as_uint(f) >> 16);
  }
}

__global__ void FillWordsKernel(uint32_t* dst, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    dst[i] = Hash(static_cast<uint32_t>(i) * 2654435761u ^ seed);
  }
}

}  // namespace

bool Check(cudaError_t err, const char* what) {
  if (err == cudaSuccess) return true;
  std::fprintf(stderr, "vt bench: %s: %s\n", what, cudaGetErrorString(err));
  return false;
}

bool FillRandomBf16(uint16_t* dst, size_t n, uint32_t seed, float scale) {
  FillBf16Kernel<<<1024, 256>>>(dst, n, seed, scale);
  return Check(cudaGetLastError(), "fill bf16");
}

bool FillRandomWords(uint32_t* dst, size_t n, uint32_t seed) {
  FillWordsKernel<<<1024, 256>>>(dst, n, seed);
  return Check(cudaGetLastError(), "fill words");
}

bool ParseShape(const std::string& s, int& k, int& n) {
  return std::sscanf(s.c_str(), "%dx%d", &k, &n) == 2 && k > 0 && n > 0;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

bool MeasureCopyGBps(double& gbps) {
  const size_t bytes = size_t(2) << 30;
  void *a = nullptr, *b = nullptr;
  cudaEvent_t start, stop;
  if (!Check(cudaMalloc(&a, bytes), "alloc") || !Check(cudaMalloc(&b, bytes), "alloc") ||
      !Check(cudaMemset(a, 1, bytes), "memset") || !Check(cudaEventCreate(&start), "event") ||
      !Check(cudaEventCreate(&stop), "event")) {
    return false;
  }
  std::vector<double> ms;
  for (int i = 0; i < 12; ++i) {
    float t = 0;
    if (!Check(cudaEventRecord(start), "record") ||
        !Check(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice), "copy") ||
        !Check(cudaEventRecord(stop), "record") || !Check(cudaEventSynchronize(stop), "sync") ||
        !Check(cudaEventElapsedTime(&t, start, stop), "elapsed")) {
      return false;
    }
    if (i >= 2) ms.push_back(t);
  }
  gbps = 2.0 * bytes / (Median(ms) * 1e-3) / 1e9;
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaFree(a);
  cudaFree(b);
  return true;
}

bool TimeGraph(const std::function<bool(int, cudaStream_t)>& launch, int launches, int reps, double& us) {
  cudaStream_t stream;
  if (!Check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream")) return false;
  for (int i = 0; i < 3; ++i) {
    if (!launch(i, stream)) return false;  // warm-up, outside the graph
  }
  if (!Check(cudaStreamSynchronize(stream), "warm-up")) return false;
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  if (!Check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "capture")) return false;
  bool ok = true;
  for (int i = 0; i < launches && ok; ++i) ok = launch(i, stream);
  if (!Check(cudaStreamEndCapture(stream, &graph), "end capture") || !ok) return false;
  if (!Check(cudaGraphInstantiate(&exec, graph, 0), "instantiate") || !Check(cudaGraphLaunch(exec, stream), "replay") ||
      !Check(cudaStreamSynchronize(stream), "replay")) {
    return false;
  }
  cudaEvent_t start, stop;
  if (!Check(cudaEventCreate(&start), "event") || !Check(cudaEventCreate(&stop), "event")) return false;
  std::vector<double> per_call;
  for (int r = 0; r < reps; ++r) {
    float ms = 0;
    if (!Check(cudaEventRecord(start, stream), "record") || !Check(cudaGraphLaunch(exec, stream), "replay") ||
        !Check(cudaEventRecord(stop, stream), "record") || !Check(cudaEventSynchronize(stop), "sync") ||
        !Check(cudaEventElapsedTime(&ms, start, stop), "elapsed")) {
      return false;
    }
    per_call.push_back(ms * 1e3 / launches);
  }
  us = Median(per_call);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
  return true;
}

}  // namespace vt::kernels::cuda::bench
