// How many CTAs of a kernel one wave holds: the persistent decode arms (decode_persistent.cu,
// decode_solo.cu) launch exactly one wave and deal the call's work out over it, and so does the
// stacked W4A16 form where a call has more column blocks than a wave holds (w4a16_stack.cu).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "kernels/cuda/per_device.h"

namespace vt::kernels::cuda::attention {

// The device's SM count and the dynamic shared memory one CTA of a kernel may opt into.
struct KernelSmemLimits {
  int sms = 1;
  size_t max_dynamic_smem = 0;
  cudaError_t status = cudaSuccess;
};

// kKernel's limits on the current device, its dynamic shared memory opt-in raised to them once a device.
template <auto kKernel>
KernelSmemLimits SmemLimitsOf() {
  static PerDevice<KernelSmemLimits> limits_by_device;
  return limits_by_device.Get([] {
    KernelSmemLimits l;
    int device = 0, count = 0, optin = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device);
    cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
    l.sms = count > 0 ? count : 1;
    // A kernel's static shared memory (the stacked W4A16 form's 4 KB; the decode arms have none)
    // comes first and the dynamic block after it, rounded up to its 128-byte alignment: the opt-in
    // leaves room for both.
    cudaFuncAttributes attributes{};
    l.status = cudaFuncGetAttributes(&attributes, kKernel);
    if (l.status != cudaSuccess) return l;
    const size_t static_smem = (attributes.sharedSizeBytes + 127) / 128 * 128;
    l.max_dynamic_smem = size_t(optin) > static_smem ? size_t(optin) - static_smem : 0;
    l.status = cudaFuncSetAttribute(kKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(l.max_dynamic_smem));
    return l;
  });
}

// Sets `ctas` to the CTAs of kKernel (`threads` threads, `smem` bytes of dynamic shared memory) that
// one wave holds on the current device, or 0 where such a CTA does not fit an SM.
template <auto kKernel>
cudaError_t ResidentCtas(int threads, size_t smem, int& ctas) {
  ctas = 0;
  const KernelSmemLimits limits = SmemLimitsOf<kKernel>();
  if (limits.status != cudaSuccess) return limits.status;
  if (smem > limits.max_dynamic_smem) return cudaSuccess;
  // Eager steps launch once per layer with the same batch: ask the occupancy once per size.
  thread_local size_t known_smem = 0;
  thread_local int known_per_sm = 0;
  if (smem != known_smem) {
    int per_sm = 0;
    const cudaError_t err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kKernel, threads, smem);
    if (err != cudaSuccess) return err;
    known_smem = smem;
    known_per_sm = per_sm;
  }
  ctas = limits.sms * known_per_sm;
  return cudaSuccess;
}

}  // namespace vt::kernels::cuda::attention
