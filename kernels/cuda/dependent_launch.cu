#include "kernels/cuda/dependent_launch.h"

#include "kernels/cuda/per_device.h"

namespace vt::kernels::cuda {
namespace {

// Per thread: each thread drives one GPU's step (tensor-parallel ranks capture their graphs at once).
thread_local bool dependent_launch = false;

bool DeviceTakesDependentLaunch() {
  int device = 0, major = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return false;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess) return false;
  return major >= 9;
}

}  // namespace

void SetDependentLaunch(bool on) {
  static PerDevice<bool> device_takes_it;
  dependent_launch = on && device_takes_it.Get(DeviceTakesDependentLaunch);
}

bool DependentLaunchOn() { return dependent_launch; }

}  // namespace vt::kernels::cuda
