#include "engine/grammar/token_vocabulary.h"

#include <algorithm>
#include <map>

namespace vt::grammar {

TokenVocabulary::TokenVocabulary(const std::vector<std::string>& token_bytes)
    : bytes_(token_bytes), size_(static_cast<int64_t>(token_bytes.size())) {
  // Built with ordered maps, then frozen into sorted vectors.
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
  nodes_.resize(children.size());
  for (size_t i = 0; i < children.size(); ++i) {
    nodes_[i].children.assign(children[i].begin(), children[i].end());
    nodes_[i].tokens = std::move(tokens[i]);
  }
}

}  // namespace vt::grammar
