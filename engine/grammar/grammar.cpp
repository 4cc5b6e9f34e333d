#include "engine/grammar/grammar.h"

#include <algorithm>

#include "engine/tokenizer/utf8.h"

namespace vt::grammar {

std::vector<CharRange> NormalizeRanges(std::vector<CharRange> ranges) {
  std::vector<CharRange> split;
  for (const CharRange& r : ranges) {
    if (r.hi < kSurrogateLo || r.lo > kSurrogateHi) {
      split.push_back(r);
      continue;
    }
    if (r.lo < kSurrogateLo) split.push_back({r.lo, kSurrogateLo - 1});
    if (r.hi > kSurrogateHi) split.push_back({kSurrogateHi + 1, r.hi});
  }
  std::sort(split.begin(), split.end(), [](const CharRange& a, const CharRange& b) { return a.lo < b.lo; });
  std::vector<CharRange> out;
  for (const CharRange& r : split) {
    if (!out.empty() && r.lo <= out.back().hi + 1) {
      out.back().hi = std::max(out.back().hi, r.hi);
    } else {
      out.push_back(r);
    }
  }
  return out;
}

std::vector<CharRange> ComplementRanges(const std::vector<CharRange>& ranges) {
  std::vector<CharRange> out;
  uint32_t next = 0;
  for (const CharRange& r : NormalizeRanges(ranges)) {
    if (r.lo > next) out.push_back({next, r.lo - 1});
    next = r.hi + 1;
  }
  if (next <= kMaxCodePoint) out.push_back({next, kMaxCodePoint});
  return NormalizeRanges(std::move(out));
}

int HexDigitValue(char32_t c) {
  if (c >= '0' && c <= '9') return int(c - '0');
  if (c >= 'a' && c <= 'f') return int(c - 'a' + 10);
  if (c >= 'A' && c <= 'F') return int(c - 'A' + 10);
  return -1;
}

Sequence Literal(std::string_view text) {
  Sequence s;
  for (const auto& [cp, bytes] : DecodeUtf8(text)) s.push_back(Char(static_cast<uint32_t>(cp)));
  return s;
}

int32_t AddRule(Grammar& g, std::string name) {
  g.rules.push_back({std::move(name), {}});
  return static_cast<int32_t>(g.rules.size()) - 1;
}

}  // namespace vt::grammar
