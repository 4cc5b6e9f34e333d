// A tokenizer.json tokenizer: added tokens → normalizer → pre-tokenizer →
// BPE → post-processor, and the decoder chain back to text. Covers the
// byte-level files of Llama 3 and Qwen 2/3 and the byte-fallback files of
// Llama 2; anything else in a file is rejected by name when loading.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace vt {

class Tokenizer {
 public:
  static Result<std::shared_ptr<Tokenizer>> FromJson(const std::string& json_text);
  static Result<std::shared_ptr<Tokenizer>> FromFile(const std::string& path);
  ~Tokenizer();

  // Invalid UTF-8 in `text` is first replaced by U+FFFD (see SanitizeUtf8).
  // add_special_tokens applies the file's post-processor (e.g. Llama 2's <s>).
  std::vector<int32_t> Encode(std::string_view text, bool add_special_tokens = false) const;

  std::string Decode(const std::vector<int32_t>& ids, bool skip_special_tokens = false) const;

  int32_t TokenToId(std::string_view token) const;  // -1 when absent
  // Per id, the bytes the token adds to a text mid-sequence (possibly part of a UTF-8 character);
  // empty for special tokens and unused ids. What a grammar constrains.
  std::vector<std::string> TokenBytesTable() const;
  int64_t vocab_size() const;                      // one past the largest id
  bool IsSpecial(int32_t id) const;

  // The most bytes of input text one token can stand for, so a text of B bytes encodes to at
  // least B / max_input_bytes_per_token() tokens; 0 when the file allows no such bound (added
  // tokens that absorb whitespace, fused unknown runs, replacements by nothing).
  int64_t max_input_bytes_per_token() const;

  struct Impl;

 private:
  explicit Tokenizer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace vt
