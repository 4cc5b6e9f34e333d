#include "engine/bench/text_prompts.h"

#include <cstdlib>
#include <vector>

namespace vt::bench {
namespace {

// Rounds of decode, re-encode and adjust: each round fixes the joins of the last; a few suffice
// for byte-level BPE vocabularies.
constexpr int kRounds = 8;

// A token that stands for whole characters and encodes back to itself alone: pieces of a UTF-8
// character decode to U+FFFD, whose bytes encode to other tokens, and would keep the length moving.
int32_t RandomWholeToken(const Tokenizer& tokenizer, std::mt19937_64& rng) {
  std::uniform_int_distribution<int64_t> id(0, tokenizer.vocab_size() - 1);
  for (;;) {
    const auto t = static_cast<int32_t>(id(rng));
    if (tokenizer.IsSpecial(t)) continue;
    const std::vector<int32_t> again = tokenizer.Encode(tokenizer.Decode({t}));
    if (again.size() == 1 && again[0] == t) return t;
  }
}

}  // namespace

TextPrompt MakeTextPrompt(const Tokenizer& tokenizer, int32_t tokens, std::mt19937_64& rng) {
  std::vector<int32_t> ids;
  TextPrompt best;
  for (int round = 0; round < kRounds; ++round) {
    while (static_cast<int32_t>(ids.size()) < tokens) ids.push_back(RandomWholeToken(tokenizer, rng));
    ids.resize(static_cast<size_t>(tokens));
    TextPrompt candidate;
    candidate.text = tokenizer.Decode(ids);
    ids = tokenizer.Encode(candidate.text);
    candidate.tokens = static_cast<int32_t>(ids.size());
    if (round == 0 || std::abs(candidate.tokens - tokens) < std::abs(best.tokens - tokens)) best = candidate;
    if (best.tokens == tokens) break;
  }
  return best;
}

}  // namespace vt::bench
