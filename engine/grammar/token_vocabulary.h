// A model's vocabulary as the grammar engine walks it: a trie over each token's bytes (the bytes it
// adds mid-text, Tokenizer::TokenBytesTable), so tokens that share a prefix share the work of
// matching it. Built once per tokenizer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vt::grammar {

class TokenVocabulary {
 public:
  struct Node {
    std::vector<std::pair<uint8_t, int32_t>> children;  // byte -> node, sorted by byte
    std::vector<int32_t> tokens;                         // the ids whose bytes end here
  };

  // token_bytes[id]: empty for ids a grammar may never produce (special tokens, unused ids).
  explicit TokenVocabulary(const std::vector<std::string>& token_bytes);

  const Node& node(int32_t i) const { return nodes_[size_t(i)]; }
  int64_t size() const { return size_; }  // one past the largest id
  const std::string& bytes(int32_t id) const { return bytes_[size_t(id)]; }

 private:
  std::vector<Node> nodes_;  // nodes_[0] is the root
  std::vector<std::string> bytes_;
  int64_t size_ = 0;
};

}  // namespace vt::grammar
