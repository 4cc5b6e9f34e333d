// Next-token masks by matcher state, shared by every request of one grammar: inside a JSON string
// or a run of digits the state repeats token after token, and a mask found once is then a copy.
// Bounded in bytes, least recently used first out; safe to share between threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace vt::grammar {

class MaskCache {
 public:
  explicit MaskCache(size_t max_bytes = size_t(64) << 20) : max_bytes_(max_bytes) {}

  // The mask stored for `state`, or null.
  std::shared_ptr<const std::vector<uint8_t>> Find(const std::string& state);
  void Insert(const std::string& state, std::shared_ptr<const std::vector<uint8_t>> mask);

  int64_t hits() const { return hits_; }
  int64_t misses() const { return misses_; }

 private:
  using Entry = std::pair<std::string, std::shared_ptr<const std::vector<uint8_t>>>;
  std::mutex mu_;
  size_t max_bytes_, bytes_ = 0;
  std::list<Entry> lru_;  // most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
  int64_t hits_ = 0, misses_ = 0;
};

}  // namespace vt::grammar
