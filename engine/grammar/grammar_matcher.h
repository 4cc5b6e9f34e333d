// One request's progress through its grammar: the parse stacks the output so far leaves, and the
// token mask of the next step — from the grammar's TokenMaskTable when it has one (an OR of
// precomputed sets plus a check of the few uncertain tokens), else by one walk of the vocabulary
// trie so that shared prefixes are matched once.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "engine/grammar/grammar.h"
#include "engine/grammar/pushdown.h"
#include "engine/grammar/token_bitmask.h"
#include "engine/grammar/token_mask_table.h"
#include "engine/grammar/token_vocabulary.h"

namespace vt::grammar {

class GrammarMatcher {
 public:
  explicit GrammarMatcher(std::shared_ptr<const Grammar> grammar);

  // Advances over `bytes`; false (and the state unchanged) when the grammar rejects them.
  bool Accept(std::string_view bytes);
  // The input so far is a complete sentence of the grammar (EOS may follow).
  bool CanEnd() const { return state_.CanEnd(); }
  // No byte can follow: the sentence is complete and nothing may extend it.
  bool Finished() const { return state_.Finished(); }

  // The tokens whose bytes the grammar accepts next, sized vocab.size(). `table`, when given, must
  // have been built for this matcher's grammar and `vocab`.
  void AllowedTokens(const TokenVocabulary& vocab, TokenBitmask* allowed, const TokenMaskTable* table = nullptr) const;

  int64_t live_stacks() const { return static_cast<int64_t>(state_.stacks.size()); }

 private:
  bool AcceptAll(ParseState& s, std::string_view bytes) const;
  void Walk(const TokenVocabulary& vocab, const ParseState& state, TokenBitmask* allowed) const;
  void FromTable(const TokenVocabulary& vocab, const TokenMaskTable& table, TokenBitmask* allowed) const;
  void DecideUncertain(const TokenVocabulary& vocab, const TokenMaskTable& table, const Stack& stack,
                       TokenBitmask* allowed) const;

  std::shared_ptr<const Pushdown> pushdown_;
  ParseState state_;
};

}  // namespace vt::grammar
