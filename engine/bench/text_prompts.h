// Text prompts of a given token length for `vt bench serve --tokenizer`: what real clients send,
// so the server's tokenizer runs on every request (token-id prompts skip it). A prompt is random
// tokens (ordinary ones that encode back to themselves) decoded to text; since text re-encodes to a
// different split at the joins, it is re-encoded and cut or extended until it encodes to the asked
// length (or the nearest found).
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "engine/tokenizer/tokenizer.h"

namespace vt::bench {

struct TextPrompt {
  std::string text;
  int32_t tokens = 0;  // what `text` encodes to with the tokenizer (no special tokens added)
};

class TextPromptMaker {
 public:
  // Finds the tokenizer's whole tokens once (a pass over its vocabulary).
  explicit TextPromptMaker(const Tokenizer& tokenizer);

  TextPrompt Make(int32_t tokens, std::mt19937_64& rng) const;

 private:
  const Tokenizer& tokenizer_;
  std::vector<int32_t> whole_tokens_;
};

}  // namespace vt::bench
