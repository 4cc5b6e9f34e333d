// The token masks a grammar's positions imply, computed once per grammar and vocabulary (the
// XGrammar approach). For each character-set position of the grammar, every token is walked from a
// stack that holds only that position, the stack below it unknown: a token that stays inside the
// position's rule is accepted whatever lies below; one that dies before leaving it is rejected;
// only a token that runs past the rule's end into a caller is uncertain, and it is tried against
// the real stacks at run time. Past the rule's end the walk goes on in every place that refers to
// the rule (an over-approximation of the real callers), so the uncertain tokens are the few whose
// remaining bytes fit some caller: `",` after a string's last character, not every token.
//
// At run time a step's mask is then an OR of the live positions' accepted sets plus a check of
// their uncertain tokens, instead of a walk of the whole vocabulary.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "engine/grammar/grammar.h"
#include "engine/grammar/pushdown.h"
#include "engine/grammar/token_bitmask.h"
#include "engine/grammar/token_vocabulary.h"

namespace vt::grammar {

class TokenMaskTable {
 public:
  struct Entry {
    // The tokens accepted whatever the stack below: as bits when many, as ids when few.
    TokenBitmask accepted_bits;  // empty when the ids are kept instead
    std::vector<int32_t> accepted_ids;
    // Tokens that some caller may accept and another not.
    std::vector<int32_t> uncertain;

    void OrInto(TokenBitmask& mask) const;
  };

  // An entry's uncertain tokens decided against the top frames of a real stack (the rest unknown):
  // accepted, or still undecided (they run deeper); the others are rejected.
  struct Decided {
    std::vector<int32_t> accepted, undecided;
  };

  // Each character position walks the vocabulary trie, so a schema of many long bounded strings
  // (a few KB of request) could ask for hours of walking; past `max_visits` trie nodes in all the
  // build stops with an error naming the bound.
  static constexpr int64_t kDefaultMaxVisits = int64_t(1) << 26;
  static Result<std::shared_ptr<const TokenMaskTable>> Build(const std::shared_ptr<const Grammar>& grammar,
                                                             const TokenVocabulary& vocab,
                                                             int64_t max_visits = kDefaultMaxVisits);

  // The entry of a character-set position of the grammar the table was built for.
  const Entry& At(const Position& p) const {
    return entries_[size_t(offsets_[size_t(p.rule)][size_t(p.alternative)] + p.element)];
  }
  const Grammar* grammar() const { return grammar_; }
  bool finish_counts() const { return finish_counts_; }  // see StayedInside

  // Decisions by the serialized top frames they were made against, shared by every request of the
  // grammar: JSON nested at any depth meets the same few frame sequences again and again. Bounded:
  // past kMaxDecided entries it starts over.
  std::shared_ptr<const Decided> FindDecided(const std::string& frames) const;
  void StoreDecided(const std::string& frames, std::shared_ptr<const Decided> decided) const;
  int64_t positions() const { return positions_; }
  int64_t uncertain_tokens() const { return uncertain_tokens_; }  // summed over positions
  int64_t bytes() const { return bytes_; }                        // of the entries

 private:
  static constexpr size_t kMaxDecided = 1 << 14;
  static constexpr size_t kMaxBuildThreads = 8;

  Entry& Mutable(const Position& p) { return entries_[size_t(offsets_[size_t(p.rule)][size_t(p.alternative)] + p.element)]; }

  const Grammar* grammar_ = nullptr;
  bool finish_counts_ = false;
  mutable std::mutex decided_mu_;
  mutable std::unordered_map<std::string, std::shared_ptr<const Decided>> decided_;
  std::vector<std::vector<int32_t>> offsets_;  // [rule][alternative]: the entry of its element 0
  std::vector<Entry> entries_;
  int64_t positions_ = 0, uncertain_tokens_ = 0, bytes_ = 0;
};

}  // namespace vt::grammar
