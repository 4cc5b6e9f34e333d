// The decimal spellings of the integers in a closed range, as grammar alternatives: how JSON Schema's
// `minimum` / `maximum` on an integer become a grammar. JSON's spelling: no leading zeros, a minus
// sign only before a non-zero magnitude. The classic digit-by-digit split: for each digit count, the
// numbers between the bounds share a prefix, then one digit class, then free digits; a free tail of
// k digits is one element (`any_digits(k)`, a shared rule), so even an unbounded side costs a few
// grammar positions per digit count.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "engine/grammar/grammar.h"

namespace vt::grammar {

// JSON Schema integers in this grammar have at most this many digits (a bound, so that a model
// cannot loop on them); |values| a range may reach.
inline constexpr int kMaxIntegerDigits = 16;
inline constexpr int64_t kMaxIntegerMagnitude = [] {
  int64_t m = 0;
  for (int d = 0; d < kMaxIntegerDigits; ++d) m = m * 10 + 9;
  return m;
}();

// Alternatives spelling exactly the integers of [lo, hi] (lo <= hi, both within the magnitude
// bound). `any_digits(k)`, k >= 1, is an element matching exactly k digits 0-9.
std::vector<Sequence> IntegerRangeAlternatives(int64_t lo, int64_t hi, const std::function<Element(int)>& any_digits);

}  // namespace vt::grammar
