// PCRE2 as the oracle of the grammar tests: whether it matches a whole string, and whether a string
// can still be completed into a match (for token masks that must only allow such prefixes).
#pragma once

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <string>

#include "engine/tokenizer/utf8.h"

namespace vt::grammar {

// PCRE2 matching the whole subject: anchored at both ends, UTF-8, $ only at the very end, \d \w \s
// ASCII (no UCP), as regex_syntax.h defines them. PCRE2 refuses partial matching with
// PCRE2_ENDANCHORED, so prefixes are tried on the pattern followed by \z.
class Pcre {
 public:
  explicit Pcre(const std::string& pattern)
      : whole_(Code(pattern, PCRE2_ENDANCHORED)), prefix_(Code("(?:" + pattern + ")\\z", 0)) {
    match_ = pcre2_match_data_create(1, nullptr);
  }
  ~Pcre() {
    pcre2_match_data_free(match_);
    pcre2_code_free(whole_);
    pcre2_code_free(prefix_);
  }
  bool ok() const { return whole_ != nullptr && prefix_ != nullptr; }
  bool Matches(const std::string& s) const { return Run(whole_, s, 0) >= 0; }
  // `s` can still be completed into a match: a match, or a hard partial one. PCRE2 refuses a
  // subject that ends inside a character, so such an end is left out of the check.
  bool Prefix(const std::string& s) const {
    const std::string complete = s.substr(0, CompleteUtf8Prefix(s));
    if (complete.empty()) return true;
    const int rc = Run(prefix_, complete, PCRE2_PARTIAL_HARD);
    return rc >= 0 || rc == PCRE2_ERROR_PARTIAL;
  }

 private:
  static pcre2_code* Code(const std::string& pattern, uint32_t options) {
    int error = 0;
    PCRE2_SIZE offset = 0;
    return pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                         PCRE2_UTF | PCRE2_ANCHORED | PCRE2_DOLLAR_ENDONLY | options, &error, &offset, nullptr);
  }
  int Run(pcre2_code* code, const std::string& s, uint32_t options) const {
    return pcre2_match(code, reinterpret_cast<PCRE2_SPTR>(s.data()), s.size(), 0, options, match_, nullptr);
  }
  pcre2_code* whole_;
  pcre2_code* prefix_;
  pcre2_match_data* match_ = nullptr;
};

}  // namespace vt::grammar
