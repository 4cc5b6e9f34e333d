#include "kernels/cuda/l2_prefetch.h"

#include <string>

#include "kernels/cuda/dependent_launch.h"
#include "kernels/device_alignment.h"

namespace vt::kernels::cuda {
namespace {

constexpr int kIssuingCtas = 16, kIssuingThreads = 32;

__global__ void __launch_bounds__(kIssuingThreads) PrefetchL2Kernel(L2Prefetch p) {
  IssueL2Prefetch(p, blockIdx.x * kIssuingThreads + threadIdx.x, kIssuingCtas * kIssuingThreads);
  AwaitPrecedingGrid();  // nothing to wait for but the contract: the kernel after this one waits on it
}

}  // namespace

L2Prefetch PrefetchHead(const void* base, size_t bytes, size_t max_bytes) {
  if (base == nullptr || !VectorAligned(base)) return {};
  return L2Prefetch{base, bytes < max_bytes ? bytes : max_bytes};
}

Status PrefetchL2(L2Prefetch p, cudaStream_t stream) {
  if (p.empty()) return Status::Ok();
  if (!VectorAligned(p.base)) return InvalidArgument("L2 prefetch: the start must be 16-byte aligned");
  const cudaError_t err = LaunchDependent(PrefetchL2Kernel, dim3(kIssuingCtas), dim3(kIssuingThreads), 0, stream, p);
  if (err != cudaSuccess) return Internal(std::string("L2 prefetch: ") + cudaGetErrorString(err));
  return Status::Ok();
}

}  // namespace vt::kernels::cuda
