// The device's copy bandwidth: the ceiling `vt bench decode` compares a weights-bound step to.
#include "engine/backends/cuda/cuda_runner.h"
#include "engine/backends/cuda/stream_timer.h"

namespace vt::cuda_backend {

Result<double> CudaModelRunner::MeasureCopyBandwidth() {
  // 256 MiB each way: four times the 60 MiB L2, so this is HBM, and within the headroom the KV
  // pool leaves. Best of five after a warm-up.
  constexpr size_t kBytes = 256u << 20;
  Result<DeviceBuffer> src = DeviceBuffer::Allocate(kBytes, "the bandwidth probe");
  if (!src.ok()) return src.status();
  Result<DeviceBuffer> dst = DeviceBuffer::Allocate(kBytes, "the bandwidth probe");
  if (!dst.ok()) return dst.status();
  Result<double> seconds = BestSeconds(stream_, 5, [&] {
    return CudaCheck(cudaMemcpyAsync(dst->as<void>(), src->as<void>(), kBytes, cudaMemcpyDeviceToDevice, stream_),
                     "a device copy");
  });
  if (!seconds.ok()) return seconds.status();
  // Read and write both count, as in ../shared/anchors.
  return 2.0 * double(kBytes) / *seconds;
}

}  // namespace vt::cuda_backend
