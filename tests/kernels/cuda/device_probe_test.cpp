// The GPU smoke test: on a machine with a CUDA device it checks what the probe
// reads; elsewhere it reports itself skipped with the reason.
#include <gtest/gtest.h>

#ifdef VT_HAVE_CUDA
#include "kernels/cuda/device_probe.h"
#endif

namespace {

TEST(GpuSmoke, DeviceIsUsable) {
#ifndef VT_HAVE_CUDA
  GTEST_SKIP() << "built without CUDA (VT_CUDA=OFF or no nvcc found)";
#else
  vt::kernels::cuda::DeviceProbe probe = vt::kernels::cuda::ProbeDevice();
  if (!probe.available) GTEST_SKIP() << probe.reason;
  EXPECT_FALSE(probe.name.empty());
  EXPECT_GT(probe.multiprocessors, 0);
  EXPECT_GE(probe.sm_major * 10 + probe.sm_minor, 80) << "vt's CUDA kernels need sm_80 or newer";
#endif
}

}  // namespace
