// Carves one device allocation into aligned pieces: sizes are added first, pointers taken after.
#pragma once

#include <cstddef>

#include "kernels/device_alignment.h"

namespace vt::cuda_backend {

class Arena {
 public:
  size_t Reserve(size_t bytes) {
    const size_t at = size_;
    size_ += kernels::AlignToDevice(bytes);
    return at;
  }
  size_t size() const { return size_; }

 private:
  size_t size_ = 0;
};

// Pinned host memory for the per-step inputs and the logits, so copies are truly asynchronous.

}  // namespace vt::cuda_backend
