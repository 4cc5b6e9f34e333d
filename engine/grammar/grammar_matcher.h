// Runs a Grammar over bytes: the set of parse stacks the input so far leaves (a nondeterministic
// pushdown automaton, as llama.cpp's grammar sampler keeps it), advanced one byte at a time with
// UTF-8 assembled across token boundaries, and the token mask of the next step: every token of a
// vocabulary whose bytes keep some stack alive, found by one walk of the vocabulary trie so that
// shared prefixes are matched once.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/grammar/grammar.h"
#include "engine/grammar/mask_cache.h"
#include "engine/grammar/token_vocabulary.h"

namespace vt::grammar {

class GrammarMatcher {
 public:
  explicit GrammarMatcher(std::shared_ptr<const Grammar> grammar);

  // Advances over `bytes`; false (and the state unchanged) when the grammar rejects them.
  bool Accept(std::string_view bytes);
  // The input so far is a complete sentence of the grammar (EOS may follow).
  bool CanEnd() const;
  // No byte can follow: the sentence is complete and nothing may extend it.
  bool Finished() const;

  // allowed[id] = 1 for each token whose bytes the grammar accepts next, else 0; sized vocab.size().
  // With a cache (one per grammar and vocabulary), a state met before costs a copy.
  void AllowedTokens(const TokenVocabulary& vocab, std::vector<uint8_t>* allowed, MaskCache* cache = nullptr) const;

 private:
  struct Position {
    int32_t rule = 0, alternative = 0, element = 0;
    bool operator==(const Position& o) const {
      return rule == o.rule && alternative == o.alternative && element == o.element;
    }
    bool operator<(const Position& o) const {
      if (rule != o.rule) return rule < o.rule;
      if (alternative != o.alternative) return alternative < o.alternative;
      return element < o.element;
    }
  };
  using Stack = std::vector<Position>;  // innermost rule last; empty: the sentence is complete

  struct State {
    std::vector<Stack> stacks;
    uint32_t partial = 0;  // bits of an incomplete UTF-8 character
    int pending = 0;       // its continuation bytes still to come
    int length = 0;        // its total length in bytes
    int seen = 0;          // bytes of it so far
  };

  bool AcceptByte(State& s, uint8_t byte) const;
  bool AcceptCodePoint(State& s, uint32_t cp) const;
  bool AnyTopIntersects(const State& s, uint32_t lo, uint32_t hi) const;
  void Expand(Stack stack, std::vector<Stack>& out, int depth, int& budget) const;
  const Element& Top(const Stack& s) const;
  std::string StateKey() const;
  void Walk(const TokenVocabulary& vocab, int32_t node, const State& state, std::vector<uint8_t>* allowed) const;

  std::shared_ptr<const Grammar> grammar_;
  State state_;
};

}  // namespace vt::grammar
