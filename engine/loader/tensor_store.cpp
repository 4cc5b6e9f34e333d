#include "engine/loader/tensor_store.h"

namespace vt {

int64_t TensorInfo::NumElements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
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
