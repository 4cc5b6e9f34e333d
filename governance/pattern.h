// A compiled PCRE2 regular expression for config-supplied patterns (trailer
// values, bot authors). PCRE2 rather than std::regex: std::regex recurses per
// character and can overflow the stack on a multi-megabyte line, and a config
// pattern must never be able to crash the gate.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"

namespace vt::gate {

class Pattern {
 public:
  // Compiles `source` (PCRE2 syntax, UTF mode off so arbitrary bytes match).
  static Result<Pattern> Compile(const std::string& source, bool caseless = false);

  // True when the pattern matches somewhere in `text`; anchor with ^...$ for
  // a whole-value match. A match that exceeds PCRE2's backtracking limit
  // counts as no match.
  bool Search(std::string_view text) const;

  const std::string& source() const { return source_; }

 private:
  struct Code;
  std::shared_ptr<Code> code_;  // shared by copies; gains a JIT-compiled copy once used often
  std::string source_;
};

}  // namespace vt::gate
