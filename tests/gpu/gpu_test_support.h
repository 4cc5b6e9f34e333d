// What the GPU tests share: a visible skip where no GPU is usable, CUDA error checks that stop
// the test binary, and host <-> device copies.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <vector>

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

}  // namespace vt::testing
