#include "kernels/cuda/testing/late_writer.h"

#include <cstdint>

namespace vt::testing {
namespace {

__device__ uint64_t GlobalNanoseconds() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void LateWriterKernel(const CopyPiece* pieces, int count, uint64_t spin_ns) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
  const uint64_t start = GlobalNanoseconds();
  while (GlobalNanoseconds() - start < spin_ns) __nanosleep(1000);
  for (int i = 0; i < count; ++i) {
    auto* dst = static_cast<uint8_t*>(pieces[i].dst);
    const auto* src = static_cast<const uint8_t*>(pieces[i].src);
    for (size_t b = threadIdx.x; b < pieces[i].bytes; b += blockDim.x) dst[b] = src[b];
  }
}

}  // namespace

cudaError_t LaunchLateWriter(const std::vector<CopyPiece>& pieces, unsigned spin_us, cudaStream_t stream) {
  // The piece list must outlive the kernel, which the caller does not wait for: it is left allocated
  // (a test process launches a handful).
  CopyPiece* device_pieces = nullptr;
  cudaError_t err = cudaMalloc(&device_pieces, pieces.size() * sizeof(CopyPiece));
  if (err != cudaSuccess) return err;
  err = cudaMemcpy(device_pieces, pieces.data(), pieces.size() * sizeof(CopyPiece), cudaMemcpyHostToDevice);
  if (err != cudaSuccess) return err;
  LateWriterKernel<<<1, 256, 0, stream>>>(device_pieces, static_cast<int>(pieces.size()),
                                          uint64_t(spin_us) * 1000);
  return cudaGetLastError();
}

}  // namespace vt::testing
