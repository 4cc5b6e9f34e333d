#include "engine/loader/tensor_store.h"

namespace vt {

size_t TensorDTypeSize(TensorDType t) { return t == TensorDType::kBF16 || t == TensorDType::kF16 ? 2 : 4; }

const char* TensorDTypeName(TensorDType t) {
  switch (t) {
    case TensorDType::kF32: return "F32";
    case TensorDType::kBF16: return "BF16";
    case TensorDType::kF16: return "F16";
    case TensorDType::kI32: return "I32";
  }
  return "?";
}

int64_t TensorInfo::NumElements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

Result<DType> TensorInfo::FloatType(const std::string& name) const {
  switch (dtype) {
    case TensorDType::kF32: return DType::kF32;
    case TensorDType::kBF16: return DType::kBF16;
    case TensorDType::kF16: return DType::kF16;
    case TensorDType::kI32: break;
  }
  return InvalidArgument("tensor '" + name + "' in " + file + " is " + TensorDTypeName(dtype) +
                         ", a float tensor (BF16, F16, F32) is needed");
}

const TensorInfo* TensorStore::Find(const std::string& name) const {
  auto it = tensors_.find(name);
  return it == tensors_.end() ? nullptr : &it->second;
}

uint64_t TensorStore::TotalBytes() const {
  uint64_t total = 0;
  for (const auto& [name, t] : tensors_) total += t.nbytes;
  return total;
}

bool TensorStore::Add(const std::string& name, TensorInfo info) {
  return tensors_.emplace(name, std::move(info)).second;
}

std::string ShapeString(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

}  // namespace vt
