#include "engine/bench/text_prompts.h"

#include <cstdlib>

namespace vt::bench {
namespace {

// Rounds of decode, re-encode and adjust: each round fixes the joins of the last; a few suffice
// for byte-level BPE vocabularies.
constexpr int kRounds = 8;

}  // namespace

// A whole token stands for whole characters and encodes back to itself alone: pieces of a UTF-8
// character decode to U+FFFD, whose bytes encode to other tokens, and would keep the length moving.
TextPromptMaker::TextPromptMaker(const Tokenizer& tokenizer) : tokenizer_(tokenizer) {
  for (int64_t id = 0; id < tokenizer.vocab_size(); ++id) {
    const auto t = static_cast<int32_t>(id);
    if (tokenizer.IsSpecial(t)) continue;
    const std::vector<int32_t> again = tokenizer.Encode(tokenizer.Decode({t}));
    if (again.size() == 1 && again[0] == t) whole_tokens_.push_back(t);
  }
}

TextPrompt TextPromptMaker::Make(int32_t tokens, std::mt19937_64& rng) const {
  if (whole_tokens_.empty()) return {};
  std::uniform_int_distribution<size_t> pick(0, whole_tokens_.size() - 1);
  std::vector<int32_t> ids;
  TextPrompt best;
  for (int round = 0; round < kRounds; ++round) {
    while (static_cast<int32_t>(ids.size()) < tokens) ids.push_back(whole_tokens_[pick(rng)]);
    ids.resize(static_cast<size_t>(tokens));
    TextPrompt candidate;
    candidate.text = tokenizer_.Decode(ids);
    ids = tokenizer_.Encode(candidate.text);
    candidate.tokens = static_cast<int32_t>(ids.size());
    if (round == 0 || std::abs(candidate.tokens - tokens) < std::abs(best.tokens - tokens)) best = candidate;
    if (best.tokens == tokens) break;
  }
  return best;
}

}  // namespace vt::bench
