// One owned device allocation. Every allocation of the CUDA runner goes through this at start-up;
// the step path only reads and writes buffers that already exist.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <utility>

#include "base/status.h"

namespace vt {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  ~DeviceBuffer() {
    if (ptr_ != nullptr) cudaFree(ptr_);
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(o.bytes_) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  // `what` names the buffer in the out-of-memory error.
  static Result<DeviceBuffer> Allocate(size_t bytes, const std::string& what) {
    DeviceBuffer b;
    if (bytes == 0) return b;
    const cudaError_t err = cudaMalloc(&b.ptr_, bytes);
    if (err != cudaSuccess) {
      b.ptr_ = nullptr;
      cudaGetLastError();  // consume the error, so the next launch check does not report it again
      return ResourceExhausted("out of GPU memory allocating " + what + " (" + std::to_string(bytes >> 20) +
                               " MiB): " + cudaGetErrorString(err));
    }
    b.bytes_ = bytes;
    return b;
  }

  template <typename T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

// A CUDA runtime call as a Status naming what was being done.
inline Status CudaCheck(cudaError_t err, const char* what) {
  if (err == cudaSuccess) return Status::Ok();
  return Internal(std::string(what) + ": " + cudaGetErrorString(err));
}

}  // namespace vt
