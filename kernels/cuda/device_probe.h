// Whether a usable CUDA device is present, and why not when it is not.
// Tests use the reason to skip visibly on machines without a GPU.
#pragma once

#include <string>

namespace vt::kernels::cuda {

struct DeviceProbe {
  bool available = false;
  std::string reason;  // why no device can be used; empty when available
  std::string name;    // e.g. "NVIDIA H200"
  int sm_major = 0;
  int sm_minor = 0;
  int multiprocessors = 0;
};

DeviceProbe ProbeDevice();

// Whether the current device runs sm_90a images (wgmma, thread-block clusters): compute capability
// 9.0 and nothing else. Read once per device.
bool CurrentDeviceRunsSm90a();

}  // namespace vt::kernels::cuda
