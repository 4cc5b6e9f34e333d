// Times work enqueued on a stream with CUDA events: the probes behind `vt bench decode`'s
// ceilings (copy bandwidth, matmul peak) share it.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <functional>

#include "base/status.h"
#include "engine/backends/cuda/device_buffer.h"

namespace vt::cuda_backend {

// The shortest of `runs` timings of `enqueue` in seconds, after one untimed warm-up run.
inline Result<double> BestSeconds(cudaStream_t stream, int runs, const std::function<Status()>& enqueue) {
  cudaEvent_t start, stop;
  VT_RETURN_IF_ERROR(CudaCheck(cudaEventCreate(&start), "creating an event"));
  if (Status s = CudaCheck(cudaEventCreate(&stop), "creating an event"); !s.ok()) {
    cudaEventDestroy(start);
    return s;
  }
  double best = 0.0;
  Status status;
  for (int i = 0; i <= runs && status.ok(); ++i) {
    cudaEventRecord(start, stream);
    status = enqueue();
    cudaEventRecord(stop, stream);
    if (status.ok()) status = CudaCheck(cudaEventSynchronize(stop), "timing device work");
    float ms = 0.f;
    if (status.ok()) cudaEventElapsedTime(&ms, start, stop);
    if (i > 0 && ms > 0.f) best = best == 0.0 ? ms / 1e3 : std::min(best, ms / 1e3);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  if (!status.ok()) return status;
  if (best <= 0.0) return Internal("timing device work: no run took measurable time");
  return best;
}

}  // namespace vt::cuda_backend
