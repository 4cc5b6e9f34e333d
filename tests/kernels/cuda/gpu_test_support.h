// What the GPU tests share: a visible skip where no GPU is usable, CUDA error checks that stop
// the test binary, host <-> device copies and random bf16 inputs.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "kernels/bf16.h"
#include "kernels/cuda/device_probe.h"

namespace vt::testing {

// Aborts the test binary with the CUDA error when a runtime call fails.
void CheckCuda(cudaError_t err, const char* what);

// Marks the current test skipped, with the probe's reason, when no CUDA device is usable; the
// caller then returns (`if (IsSkipped()) return;`).
inline void SkipWithoutGpu() {
  static const kernels::cuda::DeviceProbe probe = kernels::cuda::ProbeDevice();
  if (!probe.available) GTEST_SKIP() << probe.reason;
}

// A device copy of `host` (with 16 bytes of slack for vector loads at the end).
template <typename T>
T* Upload(const std::vector<T>& host, const char* what = "upload") {
  T* dev = nullptr;
  CheckCuda(cudaMalloc(&dev, host.size() * sizeof(T) + 16), what);
  CheckCuda(cudaMemcpy(dev, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), what);
  return dev;
}

// Waits for the device, then copies `n` values back.
template <typename T>
std::vector<T> Download(const T* dev, size_t n) {
  std::vector<T> host(n);
  CheckCuda(cudaDeviceSynchronize(), "sync");
  CheckCuda(cudaMemcpy(host.data(), dev, n * sizeof(T), cudaMemcpyDeviceToHost), "download");
  return host;
}

// Random bf16 values, uniform in [-scale, scale]: the bits for the device and the same values as
// floats for the CPU references.
struct Bf16Data {
  std::vector<uint16_t> bits;
  std::vector<float> values;
};

inline Bf16Data RandomBf16(size_t n, float scale, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-scale, scale);
  Bf16Data d;
  d.bits.reserve(n);
  d.values.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const bf16 v = FloatToBf16(dist(rng));
    d.bits.push_back(v.bits);
    d.values.push_back(Bf16ToFloat(v));
  }
  return d;
}

}  // namespace vt::testing
