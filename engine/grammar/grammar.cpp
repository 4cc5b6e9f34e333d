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

// A fixpoint found in time linear in the grammar: each alternative counts down the elements not yet
// known to derive.
std::vector<bool> DerivingRules(const Grammar& g, bool empty_only) {
  std::vector<bool> derives(g.rules.size(), false);
  std::vector<std::vector<int64_t>> waiting(g.rules.size());
  std::vector<std::vector<std::pair<int32_t, int32_t>>> users(g.rules.size());  // (rule, alternative)
  std::vector<int32_t> todo;
  auto done = [&](int32_t r) {
    if (derives[size_t(r)]) return;
    derives[size_t(r)] = true;
    todo.push_back(r);
  };
  for (size_t r = 0; r < g.rules.size(); ++r) {
    for (size_t a = 0; a < g.rules[r].alternatives.size(); ++a) {
      int64_t count = 0;
      for (const Element& e : g.rules[r].alternatives[a]) {
        if (e.kind == Element::kRule) {
          users[size_t(e.rule)].emplace_back(int32_t(r), int32_t(a));
          ++count;
        } else if (empty_only || e.ranges.empty()) {
          ++count;  // never satisfied
        }
      }
      waiting[r].push_back(count);
      if (count == 0) done(int32_t(r));
    }
  }
  while (!todo.empty()) {
    const int32_t x = todo.back();
    todo.pop_back();
    for (const auto& [r, a] : users[size_t(x)]) {
      if (--waiting[size_t(r)][size_t(a)] == 0) done(r);
    }
  }
  return derives;
}

std::vector<bool> ReachableRules(const Grammar& g) {
  std::vector<bool> reached(g.rules.size(), false);
  std::vector<int32_t> todo = {g.root};
  reached[size_t(g.root)] = true;
  while (!todo.empty()) {
    const int32_t r = todo.back();
    todo.pop_back();
    for (const Sequence& seq : g.rules[size_t(r)].alternatives) {
      for (const Element& e : seq) {
        if (e.kind == Element::kRule && !reached[size_t(e.rule)]) {
          reached[size_t(e.rule)] = true;
          todo.push_back(e.rule);
        }
      }
    }
  }
  return reached;
}

}  // namespace vt::grammar
