#include "kernels/cuda/device_probe.h"

#include <cuda_runtime.h>

namespace vt::kernels::cuda {

DeviceProbe ProbeDevice() {
  DeviceProbe probe;
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    probe.reason = std::string("no usable CUDA device: ") + cudaGetErrorString(err);
    cudaGetLastError();
    return probe;
  }
  if (count == 0) {
    probe.reason = "no CUDA device found";
    return probe;
  }
  cudaDeviceProp prop{};
  err = cudaGetDeviceProperties(&prop, 0);
  if (err != cudaSuccess) {
    probe.reason = std::string("cannot read device 0: ") + cudaGetErrorString(err);
    return probe;
  }
  probe.available = true;
  probe.name = prop.name;
  probe.sm_major = prop.major;
  probe.sm_minor = prop.minor;
  probe.multiprocessors = prop.multiProcessorCount;
  return probe;
}

}  // namespace vt::kernels::cuda
