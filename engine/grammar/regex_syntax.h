// A regular expression's text parsed into a tree, for the regex front end of the grammar engine
// (vLLM's guided_regex / structured_outputs.regex). The syntax is the common core of PCRE and
// Python's re: literals and escapes (\n \t \r \f \v \0 \xHH \x{H..} \uHHHH, escaped punctuation),
// character classes with ranges and negation, `.` (any character but \n), \d \w \s and their
// negations (ASCII, as PCRE has them without UCP), alternation, groups (capturing, named,
// non-capturing), ? * + and {m} {m,} {m,n} (lazy forms accepted: over a whole output they match the
// same strings), and ^ / $ as assertions of the output's start and end. Everything is over Unicode
// code points of UTF-8 text. Constructs that are not regular or whose meaning differs between
// dialects (lookarounds, backreferences, word boundaries, atomic groups, possessive quantifiers,
// inline flags, \p{..}, POSIX classes, {,n}) are errors naming the construct and its byte offset.
//
// The parser bounds what a hostile pattern can ask for: its length, its nesting depth and its
// repetition counts.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "engine/grammar/grammar.h"

namespace vt::grammar {

struct RegexNode {
  enum Kind {
    kEmpty,     // matches the empty string
    kChars,     // one code point out of `ranges` (sorted, disjoint; empty: matches nothing)
    kConcat,    // `children` one after another
    kAlternate, // one of `children`
    kRepeat,    // children[0], from `min` to `max` times (max -1: unbounded)
    kStart,     // ^ \A: nothing was output before
    kEnd,       // $ \z: nothing is output after
  } kind = kEmpty;
  std::vector<CharRange> ranges;
  std::vector<std::unique_ptr<RegexNode>> children;
  int64_t min = 0, max = 0;
};

struct RegexLimits {
  size_t max_pattern_bytes = 16 * 1024;
  int max_depth = 64;        // nested groups and repetitions
  int64_t max_repeat = 1000; // largest count in {m}, {m,}, {m,n}
};

Result<std::unique_ptr<RegexNode>> ParseRegex(std::string_view pattern, const RegexLimits& limits = {});

}  // namespace vt::grammar
