#include "engine/backends/cuda/nccl_group.h"

#include <dlfcn.h>

#include <cstdlib>
#include <string>
#include <type_traits>

namespace vt::cuda_backend {

struct NcclApi {
  decltype(&ncclCommInitAll) comm_init_all = nullptr;
  decltype(&ncclCommDestroy) comm_destroy = nullptr;
  decltype(&ncclAllReduce) all_reduce = nullptr;
  decltype(&ncclAllGather) all_gather = nullptr;
  decltype(&ncclGetErrorString) error_string = nullptr;
  decltype(&ncclGetVersion) get_version = nullptr;
};

// bf16 reductions (the forward's activations) came with NCCL 2.10.
constexpr int kMinNcclVersion = 21000;

namespace {

// libnccl.so.2, from the loader's path or the CUDA toolkit's, once per process; the error when it
// cannot be loaded or lacks an entry point.
Result<const NcclApi*> LoadNccl() {
  static const Result<const NcclApi*> loaded = []() -> Result<const NcclApi*> {
    void* lib = nullptr;
    std::string tried;
    for (const char* path : {"libnccl.so.2", "/usr/local/cuda/lib64/libnccl.so.2"}) {
      lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
      if (lib != nullptr) break;
      const char* why = dlerror();
      tried += std::string(tried.empty() ? "" : "; ") + (why ? why : path);
    }
    if (lib == nullptr) return Unavailable("tensor parallelism needs NCCL, which could not be loaded: " + tried);
    static NcclApi api;
    auto resolve = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
      return fn != nullptr;
    };
    if (!resolve(api.comm_init_all, "ncclCommInitAll") || !resolve(api.comm_destroy, "ncclCommDestroy") ||
        !resolve(api.all_reduce, "ncclAllReduce") || !resolve(api.all_gather, "ncclAllGather") ||
        !resolve(api.error_string, "ncclGetErrorString") || !resolve(api.get_version, "ncclGetVersion")) {
      return Unavailable("the NCCL library that was loaded lacks an entry point vt uses (NCCL 2.x expected)");
    }
    int version = 0;
    if (api.get_version(&version) != ncclSuccess || version < kMinNcclVersion) {
      return Unavailable("tensor parallelism needs NCCL 2.10 or newer (bf16 all-reduce); the loaded one reports " +
                         std::to_string(version));
    }
    return static_cast<const NcclApi*>(&api);
  }();
  return loaded;
}

}  // namespace

Result<std::unique_ptr<NcclGroup>> NcclGroup::Create(int size) {
  if (size < 1) return InvalidArgument("tensor-parallel size " + std::to_string(size) + ": must be at least 1");
  int visible = 0;
  const cudaError_t counted = cudaGetDeviceCount(&visible);
  if (counted != cudaSuccess) {
    return Unavailable(std::string("tensor parallelism: no usable GPU (") + cudaGetErrorString(counted) + ")");
  }
  if (visible < size) {
    return InvalidArgument("tensor-parallel size " + std::to_string(size) + " needs " + std::to_string(size) +
                           " GPUs; " + std::to_string(visible) + " visible (CUDA_VISIBLE_DEVICES selects them)");
  }
  Result<const NcclApi*> api = LoadNccl();
  if (!api.ok()) return api.status();
  setenv("NCCL_NVLS_ENABLE", "0", /*overwrite=*/0);
  std::vector<int> devices(static_cast<size_t>(size));
  for (int i = 0; i < size; ++i) devices[static_cast<size_t>(i)] = i;
  std::vector<ncclComm_t> comms(static_cast<size_t>(size), nullptr);
  const ncclResult_t made = (*api)->comm_init_all(comms.data(), size, devices.data());
  if (made != ncclSuccess) {
    return Internal("NCCL could not set up " + std::to_string(size) + " GPUs: " + (*api)->error_string(made));
  }
  return std::unique_ptr<NcclGroup>(new NcclGroup(*api, std::move(comms)));
}

NcclGroup::~NcclGroup() {
  for (ncclComm_t comm : comms_) api_->comm_destroy(comm);
}

Status NcclGroup::Checked(ncclResult_t result, const char* what) const {
  if (result == ncclSuccess) return Status::Ok();
  return Internal(std::string("NCCL ") + what + ": " + api_->error_string(result));
}

Status NcclGroup::AllReduceSum(int rank, void* data, size_t count, ncclDataType_t type, cudaStream_t stream) {
  if (rank < 0 || rank >= size()) return InvalidArgument("NCCL all-reduce: rank " + std::to_string(rank) + " outside the group");
  return Checked(api_->all_reduce(data, data, count, type, ncclSum, comms_[static_cast<size_t>(rank)], stream),
                 "all-reduce");
}

Status NcclGroup::AllGather(int rank, const void* in, void* out, size_t count, ncclDataType_t type,
                            cudaStream_t stream) {
  if (rank < 0 || rank >= size()) return InvalidArgument("NCCL all-gather: rank " + std::to_string(rank) + " outside the group");
  return Checked(api_->all_gather(in, out, count, type, comms_[static_cast<size_t>(rank)], stream), "all-gather");
}

}  // namespace vt::cuda_backend
