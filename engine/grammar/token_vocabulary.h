// A model's vocabulary as the grammar engine walks it: a trie over each token's bytes (the bytes it
// adds mid-text, Tokenizer::TokenBytesTable), so tokens that share a prefix share the work of
// matching it. Built once per tokenizer.
//
// The trie is stored flat, in preorder: node 0 is the root, node i's subtree is [i, subtree_end(i)),
// and a walk is a forward scan that jumps over a refused byte's subtree (WalkTrie). A grammar's mask
// table walks it once per character position, so the layout, not the arithmetic, sets its build time.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace vt::grammar {

class TokenVocabulary {
 public:
  // token_bytes[id]: empty for ids a grammar may never produce (special tokens, unused ids).
  explicit TokenVocabulary(const std::vector<std::string>& token_bytes);

  int32_t nodes() const { return static_cast<int32_t>(byte_.size()); }
  uint8_t byte(int32_t i) const { return byte_[size_t(i)]; }  // on the edge into node i (i > 0)
  int32_t depth(int32_t i) const { return depth_[size_t(i)]; }  // bytes from the root
  int32_t subtree_end(int32_t i) const { return subtree_end_[size_t(i)]; }
  int32_t max_depth() const { return max_depth_; }
  // The ids whose bytes end at node i.
  std::span<const int32_t> tokens_at(int32_t i) const {
    return {token_ids_.data() + token_begin_[size_t(i)], token_ids_.data() + token_begin_[size_t(i) + 1]};
  }

  int64_t size() const { return size_; }  // one past the largest id
  const std::string& bytes(int32_t id) const { return bytes_[size_t(id)]; }

 private:
  std::vector<uint8_t> byte_;
  std::vector<int32_t> depth_, subtree_end_;
  std::vector<int32_t> token_begin_;  // nodes() + 1 offsets into token_ids_
  std::vector<int32_t> token_ids_;
  int32_t max_depth_ = 0;
  std::vector<std::string> bytes_;
  int64_t size_ = 0;
};

// Walks the trie from the root in state `root`, in preorder (children by byte): `step(from, byte, &to)`
// gives the state after a byte, false when the byte is refused, and then the node's subtree is
// skipped; `reached(node, state)` is called for every node a byte leads into. Returns the nodes
// visited (reached or refused).
template <typename State, typename Step, typename Reached>
int64_t WalkTrie(const TokenVocabulary& vocab, const State& root, Step&& step, Reached&& reached) {
  std::vector<State> at_depth(size_t(vocab.max_depth()) + 1);
  at_depth[0] = root;
  int64_t visits = 0;
  for (int32_t i = 1; i < vocab.nodes();) {
    ++visits;
    const int32_t d = vocab.depth(i);
    if (!step(at_depth[size_t(d) - 1], vocab.byte(i), &at_depth[size_t(d)])) {
      i = vocab.subtree_end(i);
      continue;
    }
    reached(i, at_depth[size_t(d)]);
    ++i;
  }
  return visits;
}

}  // namespace vt::grammar
