// A set of token ids as bits, 32 to a word (the layout a sampling kernel reads): what the grammar
// lets the next token be.
#pragma once

#include <cstdint>
#include <vector>

namespace vt::grammar {

class TokenBitmask {
 public:
  // `size` ids, none set.
  void Reset(int64_t size) {
    size_ = size;
    words_.assign(static_cast<size_t>((size + 31) / 32), 0);
  }
  // Grows (new ids not set) or shrinks to `size` ids.
  void Resize(int64_t size) {
    words_.resize(static_cast<size_t>((size + 31) / 32), 0);
    if (size < size_ && (size & 31) != 0) words_.back() &= (1u << (size & 31)) - 1;
    size_ = size;
  }
  void Set(int64_t id) { words_[size_t(id >> 5)] |= 1u << (id & 31); }
  bool Test(int64_t id) const { return (words_[size_t(id >> 5)] >> (id & 31)) & 1u; }
  void Or(const TokenBitmask& other) {
    for (size_t i = 0; i < words_.size() && i < other.words_.size(); ++i) words_[i] |= other.words_[i];
  }
  bool Any() const {
    for (uint32_t w : words_) {
      if (w != 0) return true;
    }
    return false;
  }
  int64_t Count() const {
    int64_t n = 0;
    for (uint32_t w : words_) n += __builtin_popcount(w);
    return n;
  }

  int64_t size() const { return size_; }
  const std::vector<uint32_t>& words() const { return words_; }

 private:
  int64_t size_ = 0;
  std::vector<uint32_t> words_;
};

}  // namespace vt::grammar
