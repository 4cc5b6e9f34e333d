// JSON Schema's `pattern` keyword: a JSON string literal whose decoded content the regular
// expression matches. Patterns in JSON Schema are unanchored (a match anywhere in the string
// counts; `^` and `$` anchor it), so the regex runs as `(?:.|\n)*(?:P)(?:.|\n)*` through the regex
// front end (regex_grammar.h, its syntax and limits). The automaton reads decoded characters; in
// the grammar, the characters JSON must escape (`"`, `\` and U+0000-U+001F) appear as their
// escapes (`\"`, `\\`, `\n`, ..., `\u00XX`), every other character as itself.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"
#include "engine/grammar/grammar.h"

namespace vt::grammar {

// minLength/maxLength beside the pattern: the decoded string's length in characters, an escape
// counting as the one character it stands for.
struct StringLength {
  int64_t min = 0;
  int64_t max = -1;  // no upper bound
};

// Adds the rules to `g` and returns the id of the string rule (quotes included); `name` prefixes
// the new rules' names. The lengths, when they bound anything, intersect the pattern's automaton
// with a counter of characters (right_linear.h), within the regex front end's limit on states.
// Errors are the regex front end's, a product past that limit, or no string that fits.
Result<int32_t> AddJsonStringPattern(Grammar& g, std::string_view pattern, StringLength length,
                                     const std::string& name);

}  // namespace vt::grammar
