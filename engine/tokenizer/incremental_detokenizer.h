// Streams text as tokens arrive without ever emitting part of a UTF-8
// character: each call decodes a short window of recent tokens and emits only
// what the newest token added, holding it back while the window still ends in
// an incomplete character (decoded as U+FFFD). Decoding a window rather than
// one token keeps decoder rules that look at neighbours (Llama 2's leading
// space, byte-fallback runs) exact.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/tokenizer/tokenizer.h"

namespace vt {

class IncrementalDetokenizer {
 public:
  IncrementalDetokenizer(std::shared_ptr<const Tokenizer> tokenizer, bool skip_special_tokens,
                         std::vector<int32_t> prompt = {});

  // New complete text after `id` (possibly empty).
  std::string Add(int32_t id);

  // Whatever is still held back, replacement characters included.
  std::string Flush();

 private:
  std::string DecodeRange(size_t begin, size_t end) const;

  std::shared_ptr<const Tokenizer> tokenizer_;
  bool skip_special_;
  std::vector<int32_t> ids_;
  size_t prefix_offset_ = 0;  // window start
  size_t read_offset_ = 0;    // tokens before this are emitted
};

}  // namespace vt
