// The dense bf16 matmul rate the device reaches: the denominator of `vt bench decode`'s prefill
// model FLOP utilisation, measured by the same binary and job as the prefill it divides.
#include <cstdint>
#include <cstring>
#include <vector>

#include "engine/backends/cuda/cuda_runner.h"
#include "engine/backends/cuda/stream_timer.h"

namespace vt::cuda_backend {
namespace {

// bf16 values spread over [-1, 1): random bits load the tensor cores as real weights do (a
// constant fill draws less power and overstates the sustained rate).
std::vector<uint16_t> RandomBf16(size_t n) {
  std::vector<uint16_t> values(n);
  uint32_t state = 0x9e3779b9u;
  for (uint16_t& v : values) {
    state = state * 1664525u + 1013904223u;
    const float f = static_cast<float>(state >> 8) / 8388608.0f - 1.0f;
    uint32_t bits = 0;
    std::memcpy(&bits, &f, sizeof bits);
    v = static_cast<uint16_t>(bits >> 16);
  }
  return values;
}

}  // namespace

Result<double> CudaModelRunner::MeasureMatmulPeak() {
  // 8192^3 through the runner's own GEMM path (cuBLAS at this size), as ../shared/anchors times
  // cuBLAS; 384 MiB, within the headroom the KV pool leaves.
  constexpr int kN = 8192;
  constexpr size_t kElems = size_t(kN) * kN;
  const std::vector<uint16_t> host = RandomBf16(kElems);
  Result<DeviceBuffer> a = DeviceBuffer::Allocate(kElems * 2, "the matmul probe");
  if (!a.ok()) return a.status();
  Result<DeviceBuffer> b = DeviceBuffer::Allocate(kElems * 2, "the matmul probe");
  if (!b.ok()) return b.status();
  Result<DeviceBuffer> c = DeviceBuffer::Allocate(kElems * 2, "the matmul probe");
  if (!c.ok()) return c.status();
  VT_RETURN_IF_ERROR(CudaCheck(cudaMemcpy(a->as<void>(), host.data(), kElems * 2, cudaMemcpyHostToDevice),
                               "filling the matmul probe"));
  VT_RETURN_IF_ERROR(CudaCheck(cudaMemcpy(b->as<void>(), host.data(), kElems * 2, cudaMemcpyHostToDevice),
                               "filling the matmul probe"));
  Result<double> seconds = BestSeconds(stream_, 5, [&] {
    return gemm_->Linear(a->as<uint16_t>(), b->as<uint16_t>(), kN, kN, kN, c->as<uint16_t>(), stream_);
  });
  if (!seconds.ok()) return seconds.status();
  return 2.0 * double(kN) * kN * kN / *seconds;
}

}  // namespace vt::cuda_backend
