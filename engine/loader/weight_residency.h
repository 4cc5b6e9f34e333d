// Host memory behind a model's matrices that a device backend copies once. Acquire makes one
// matrix's bytes readable just before its copy and Release gives them back right after, so loading
// onto a GPU holds about one tensor of host memory at a time instead of the whole model (the CPU
// backend computes on the matrices where they are and never releases them).
#pragma once

#include <cstddef>
#include <memory>

#include "base/status.h"
#include "kernels/cpu/dtype.h"

namespace vt {

class WeightResidency {
 public:
  virtual ~WeightResidency() = default;
  virtual Status Acquire(const kernels::cpu::WeightMatrix& m) = 0;
  virtual void Release(const kernels::cpu::WeightMatrix& m) = 0;
};

// Gives the kernel back the whole pages inside [data, data + bytes) of a read-only file mapping or
// of anonymous memory that is refilled before its next use; pages shared with neighbours stay.
void DropPages(const void* data, size_t bytes);

// Views into read-only mapped checkpoint files: pages fault in from the file on the copy and are
// dropped after it.
std::shared_ptr<WeightResidency> MappedFileResidency();

}  // namespace vt
