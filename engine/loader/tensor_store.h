// Named, read-only tensors of a checkpoint, backed by memory (mmapped files or
// owned buffers) that lives as long as the store.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kernels/cpu/dtype.h"

namespace vt {

using kernels::cpu::DType;

struct TensorInfo {
  DType dtype = DType::kF32;
  std::vector<int64_t> shape;
  const void* data = nullptr;
  uint64_t nbytes = 0;
  std::string file;  // where it came from, for error messages

  int64_t NumElements() const;
};

class TensorStore {
 public:
  const TensorInfo* Find(const std::string& name) const;
  const std::map<std::string, TensorInfo>& tensors() const { return tensors_; }
  uint64_t TotalBytes() const;

  // Returns false when the name is already present.
  bool Add(const std::string& name, TensorInfo info);
  void KeepAlive(std::shared_ptr<const void> backing) { backing_.push_back(std::move(backing)); }

 private:
  std::map<std::string, TensorInfo> tensors_;
  std::vector<std::shared_ptr<const void>> backing_;
};

std::string ShapeString(const std::vector<int64_t>& shape);

}  // namespace vt
