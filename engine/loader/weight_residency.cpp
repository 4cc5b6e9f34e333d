#include "engine/loader/weight_residency.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

namespace vt {
namespace {

class MappedFiles final : public WeightResidency {
 public:
  Status Acquire(const kernels::cpu::WeightMatrix&) override { return Status::Ok(); }
  void Release(const kernels::cpu::WeightMatrix& m) override {
    if (m.data != nullptr) DropPages(m.data, static_cast<size_t>(m.rows * m.cols) * kernels::cpu::DTypeSize(m.dtype));
  }
};

}  // namespace

void DropPages(const void* data, size_t bytes) {
  static const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + page - 1) / page * page;
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) / page * page;
  // Advice only: a failure leaves the pages resident, which costs memory, never correctness.
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

std::shared_ptr<WeightResidency> MappedFileResidency() { return std::make_shared<MappedFiles>(); }

}  // namespace vt
