// A value made once per GPU of the process. Kernel attributes (cudaFuncSetAttribute) and device
// properties belong to the device current when they are set or read, so a process that drives
// several GPUs (tensor parallelism: one thread per GPU) must make them on each; a function-local
// `static` would make them on the first device only, and the others' launches would fail.
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <mutex>
#include <optional>

namespace vt::kernels::cuda {

template <typename T>
class PerDevice {
 public:
  static constexpr int kMaxDevices = 64;

  // The current device's value, made by `make` (with that device current) the first time.
  template <typename Make>
  T Get(Make&& make) {
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= kMaxDevices) return make();
    std::lock_guard<std::mutex> lock(mu_);
    std::optional<T>& value = values_[static_cast<size_t>(device)];
    if (!value) value = make();
    return *value;
  }

 private:
  std::mutex mu_;
  std::array<std::optional<T>, kMaxDevices> values_;
};

// Lets `Kernel` take kBytes of dynamic shared memory (past the 48 KiB default) on the current device:
// set once per device; the attribute call's result.
template <auto Kernel, size_t kBytes>
cudaError_t AllowDynamicSharedMemory() {
  static PerDevice<cudaError_t> set;
  return set.Get(
      [] { return cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kBytes)); });
}

}  // namespace vt::kernels::cuda
