#include "engine/grammar/mask_cache.h"

namespace vt::grammar {

std::shared_ptr<const std::vector<uint8_t>> MaskCache::Find(const std::string& state) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = index_.find(state);
  if (it == index_.end()) {
    ++misses_;
    return nullptr;
  }
  ++hits_;
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->second;
}

void MaskCache::Insert(const std::string& state, std::shared_ptr<const std::vector<uint8_t>> mask) {
  std::lock_guard<std::mutex> lock(mu_);
  if (index_.count(state) != 0) return;
  const size_t size = mask->size() + state.size();
  if (size > max_bytes_) return;
  while (bytes_ + size > max_bytes_ && !lru_.empty()) {
    bytes_ -= lru_.back().second->size() + lru_.back().first.size();
    index_.erase(lru_.back().first);
    lru_.pop_back();
  }
  lru_.emplace_front(state, std::move(mask));
  index_[state] = lru_.begin();
  bytes_ += size;
}

}  // namespace vt::grammar
