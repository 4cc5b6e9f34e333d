// The NCCL communicators of a tensor-parallel group: one process, one thread per GPU (the
// engine's step is one loop; a thread per rank drives its GPU through the same step, so the ranks
// never need a launcher or a rendezvous across processes). NCCL is loaded at run time (dlopen of
// libnccl.so.2), so `vt` starts and serves on one GPU where NCCL is not installed; a group of more
// than one GPU names what is missing. NVLink SHARP (NVLS) is kept off unless the caller set
// NCCL_NVLS_ENABLE: it is forbidden on the shared machines this was built on.
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <memory>
#include <vector>

#include "base/status.h"

namespace vt::cuda_backend {

struct NcclApi;  // the entry points resolved from libnccl.so.2

class NcclGroup {
 public:
  // Communicators over devices 0 .. size-1. Errors name the cause: a size below 1, fewer visible
  // GPUs than `size`, NCCL missing (the dlopen error), or NCCL's own init failure.
  static Result<std::unique_ptr<NcclGroup>> Create(int size);
  ~NcclGroup();
  NcclGroup(const NcclGroup&) = delete;
  NcclGroup& operator=(const NcclGroup&) = delete;

  int size() const { return static_cast<int>(comms_.size()); }

  // Rank `rank`'s `data[0, count)` becomes the sum over the ranks, queued on `stream` (rank's
  // device current). Every rank calls it with the same count; capturable in a CUDA graph.
  Status AllReduceSum(int rank, void* data, size_t count, ncclDataType_t type, cudaStream_t stream);
  // Rank `rank`'s `in[0, count)` lands at out[rank * count, (rank + 1) * count) on every rank.
  Status AllGather(int rank, const void* in, void* out, size_t count, ncclDataType_t type, cudaStream_t stream);

 private:
  NcclGroup(const NcclApi* api, std::vector<ncclComm_t> comms) : api_(api), comms_(std::move(comms)) {}
  Status Checked(ncclResult_t result, const char* what) const;

  const NcclApi* api_;
  std::vector<ncclComm_t> comms_;
};

}  // namespace vt::cuda_backend
