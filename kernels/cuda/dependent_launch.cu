#include "kernels/cuda/dependent_launch.h"

#include <atomic>

namespace vt::kernels::cuda {
namespace {

std::atomic<bool> dependent_launch{false};

bool DeviceTakesDependentLaunch() {
  int device = 0, major = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return false;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess) return false;
  return major >= 9;
}

}  // namespace

void SetDependentLaunch(bool on) {
  static const bool device_takes_it = DeviceTakesDependentLaunch();  // asked of the first caller's device
  dependent_launch.store(on && device_takes_it, std::memory_order_relaxed);
}

bool DependentLaunchOn() { return dependent_launch.load(std::memory_order_relaxed); }

}  // namespace vt::kernels::cuda
