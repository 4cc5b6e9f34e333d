// Pinned host memory for the per-step inputs and the logits, so copies are truly asynchronous.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "engine/backends/cuda/device_buffer.h"

namespace vt::cuda_backend {

class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  ~PinnedBuffer() {
    if (ptr_ != nullptr) cudaFreeHost(ptr_);
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  Status Allocate(size_t bytes) { return CudaCheck(cudaMallocHost(&ptr_, bytes), "allocating pinned host memory"); }
  template <typename T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }

 private:
  void* ptr_ = nullptr;
};

}  // namespace vt::cuda_backend
