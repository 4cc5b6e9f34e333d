#include "engine/grammar/inline_rules.h"

#include <algorithm>

namespace vt::grammar {

namespace {

// Bounds that keep the copies small: a rule qualifies with at most this many alternatives of at
// most this many characters, and a sequence is multiplied out into at most this many.
constexpr size_t kMaxAlternatives = 4;
constexpr size_t kMaxLength = 8;
constexpr size_t kMaxProduct = 16;

bool OnlyCharacters(const Grammar& g, int32_t r) {
  const Rule& rule = g.rules[size_t(r)];
  if (r == g.root || rule.alternatives.empty() || rule.alternatives.size() > kMaxAlternatives) return false;
  return std::all_of(rule.alternatives.begin(), rule.alternatives.end(), [](const Sequence& seq) {
    return seq.size() <= kMaxLength &&
           std::all_of(seq.begin(), seq.end(), [](const Element& e) { return e.kind == Element::kChars; });
  });
}

}  // namespace

Grammar InlineCharacterRules(Grammar g) {
  std::vector<bool> inlinable(g.rules.size());
  for (size_t r = 0; r < g.rules.size(); ++r) inlinable[r] = OnlyCharacters(g, static_cast<int32_t>(r));
  for (Rule& rule : g.rules) {
    std::vector<Sequence> alternatives;
    for (const Sequence& seq : rule.alternatives) {
      std::vector<Sequence> expanded = {{}};
      for (const Element& e : seq) {
        const bool copy = e.kind == Element::kRule && inlinable[size_t(e.rule)] &&
                          expanded.size() * g.rules[size_t(e.rule)].alternatives.size() <= kMaxProduct;
        if (!copy) {
          for (Sequence& partial : expanded) partial.push_back(e);
          continue;
        }
        std::vector<Sequence> next;
        for (const Sequence& partial : expanded) {
          for (const Sequence& body : g.rules[size_t(e.rule)].alternatives) {
            next.push_back(partial);
            next.back().insert(next.back().end(), body.begin(), body.end());
          }
        }
        expanded = std::move(next);
      }
      alternatives.insert(alternatives.end(), expanded.begin(), expanded.end());
    }
    rule.alternatives = std::move(alternatives);
  }
  return g;
}

}  // namespace vt::grammar
