// The Split pre-tokenizer with behavior "Isolated": every regex match is a
// piece, and so is any text between matches. PCRE2 runs the patterns of
// tokenizer.json as written (Unicode classes, lookahead) in UTF + UCP mode.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace vt {

class RegexSplitter {
 public:
  static Result<std::shared_ptr<RegexSplitter>> Compile(const std::string& pattern);
  ~RegexSplitter();
  RegexSplitter(const RegexSplitter&) = delete;
  RegexSplitter& operator=(const RegexSplitter&) = delete;

  // `text` must be valid UTF-8. Pieces are views into it.
  std::vector<std::string_view> Split(std::string_view text) const;

 private:
  RegexSplitter() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace vt
