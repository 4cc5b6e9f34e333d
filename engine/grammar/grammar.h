// A context-free grammar over Unicode code points, as the grammar engine runs it: rules of
// alternatives, each a sequence of character sets and rule references (GBNF's model). Repetition
// is right recursion, so no rule may start with itself (left recursion would expand forever); the
// compilers in this folder never produce it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vt::grammar {

struct CharRange {
  uint32_t lo = 0, hi = 0;  // inclusive code points
};

struct Element {
  enum Kind { kChars, kRule } kind = kChars;
  std::vector<CharRange> ranges;  // kChars: the code points it accepts
  int32_t rule = -1;              // kRule

  bool Accepts(uint32_t cp) const {
    for (const CharRange& r : ranges) {
      if (cp >= r.lo && cp <= r.hi) return true;
    }
    return false;
  }
};

using Sequence = std::vector<Element>;

struct Rule {
  std::string name;
  std::vector<Sequence> alternatives;
};

struct Grammar {
  std::vector<Rule> rules;
  int32_t root = 0;
};

// Building blocks for the compilers.
inline Element Chars(std::vector<CharRange> ranges) { return {Element::kChars, std::move(ranges), -1}; }
inline Element Char(uint32_t cp) { return Chars({{cp, cp}}); }
inline Element Ref(int32_t rule) { return {Element::kRule, {}, rule}; }

// The largest code point; UTF-16 surrogates are no characters (UTF-8 never encodes them, so no
// output can hold one).
constexpr uint32_t kMaxCodePoint = 0x10FFFF;
constexpr uint32_t kSurrogateLo = 0xD800, kSurrogateHi = 0xDFFF;

// Sorted, merged, without surrogates: the form the front ends give every character set.
std::vector<CharRange> NormalizeRanges(std::vector<CharRange> ranges);
// The code points not in `ranges`, normalized (a negated class).
std::vector<CharRange> ComplementRanges(const std::vector<CharRange>& ranges);

// The value of a hexadecimal digit (the front ends' \x and \u escapes); -1 for another character.
int HexDigitValue(char32_t c);

// The code points of `text` (UTF-8), one single-character element each.
Sequence Literal(std::string_view text);

// A new rule with no alternatives yet; its id.
int32_t AddRule(Grammar& g, std::string name);

// Per rule, whether it derives some string (an empty character set derives none), or, with
// `empty_only`, the empty string.
std::vector<bool> DerivingRules(const Grammar& g, bool empty_only);

// Per rule, whether the root leads to it.
std::vector<bool> ReachableRules(const Grammar& g);

}  // namespace vt::grammar
