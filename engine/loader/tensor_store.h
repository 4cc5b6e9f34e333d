// Named, read-only tensors of a checkpoint, backed by memory (mmapped files or
// owned buffers) that lives as long as the store.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "kernels/cpu/dtype.h"

namespace vt {

using kernels::cpu::DType;

// What a checkpoint tensor holds: the float types the kernels read, or int32
// (GPTQ's packed weights, zero points and group indices), which only the GPTQ
// loader consumes.
enum class TensorDType : uint8_t { kF32, kBF16, kF16, kI32 };

size_t TensorDTypeSize(TensorDType t);
const char* TensorDTypeName(TensorDType t);

struct TensorInfo {
  TensorDType dtype = TensorDType::kF32;
  std::vector<int64_t> shape;
  const void* data = nullptr;
  uint64_t nbytes = 0;
  std::string file;  // where it came from, for error messages

  int64_t NumElements() const;
  // The kernels' type of a float tensor; an error naming the tensor for int32.
  Result<DType> FloatType(const std::string& name) const;
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
