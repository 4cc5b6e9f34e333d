#include "kernels/cuda/device_probe.h"

#include <cuda_runtime.h>

#include "kernels/cuda/per_device.h"

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

bool CurrentDeviceRunsSm90a() {
  static PerDevice<bool> sm90a;
  return sm90a.Get([] {
    int device = 0, major = 0, minor = 0;
    return cudaGetDevice(&device) == cudaSuccess &&
           cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess &&
           cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) == cudaSuccess &&
           major == 9 && minor == 0;
  });
}

}  // namespace vt::kernels::cuda
