#include "engine/grammar/token_vocabulary.h"

#include <algorithm>
#include <map>
#include <utility>

namespace vt::grammar {

TokenVocabulary::TokenVocabulary(const std::vector<std::string>& token_bytes)
    : bytes_(token_bytes), size_(static_cast<int64_t>(token_bytes.size())) {
  // Built with ordered maps, then laid out in preorder.
  std::vector<std::map<uint8_t, int32_t>> children(1);
  std::vector<std::vector<int32_t>> tokens(1);
  for (size_t id = 0; id < token_bytes.size(); ++id) {
    const std::string& b = token_bytes[id];
    if (b.empty()) continue;
    int32_t at = 0;
    for (char c : b) {
      const uint8_t byte = static_cast<uint8_t>(c);
      auto it = children[size_t(at)].find(byte);
      if (it == children[size_t(at)].end()) {
        const int32_t next = static_cast<int32_t>(children.size());
        children[size_t(at)].emplace(byte, next);
        children.emplace_back();
        tokens.emplace_back();
        at = next;
      } else {
        at = it->second;
      }
    }
    tokens[size_t(at)].push_back(static_cast<int32_t>(id));
  }
  const size_t n = children.size();
  byte_.reserve(n);
  depth_.reserve(n);
  subtree_end_.assign(n, 0);
  token_begin_.reserve(n + 1);
  // An explicit stack (a token may be hundreds of bytes): each entry is a built node and the next of
  // its children to lay out.
  struct Open {
    int32_t old_id, new_id;
    std::map<uint8_t, int32_t>::const_iterator next_child;
  };
  std::vector<Open> open;
  auto lay_out = [&](int32_t old_id, uint8_t byte, int32_t depth) {
    const auto new_id = static_cast<int32_t>(byte_.size());
    byte_.push_back(byte);
    depth_.push_back(depth);
    max_depth_ = std::max(max_depth_, depth);
    token_begin_.push_back(static_cast<int32_t>(token_ids_.size()));
    token_ids_.insert(token_ids_.end(), tokens[size_t(old_id)].begin(), tokens[size_t(old_id)].end());
    open.push_back({old_id, new_id, children[size_t(old_id)].begin()});
  };
  lay_out(0, 0, 0);
  while (!open.empty()) {
    Open& top = open.back();
    if (top.next_child == children[size_t(top.old_id)].end()) {
      subtree_end_[size_t(top.new_id)] = static_cast<int32_t>(byte_.size());
      open.pop_back();
      continue;
    }
    const auto [byte, child] = *top.next_child++;
    lay_out(child, byte, depth_[size_t(top.new_id)] + 1);
  }
  token_begin_.push_back(static_cast<int32_t>(token_ids_.size()));
}

}  // namespace vt::grammar
