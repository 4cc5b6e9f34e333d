#include "engine/server/grammar_splice.h"

namespace vt::server {

int32_t SpliceGrammar(grammar::Grammar& into, const grammar::Grammar& part) {
  const auto offset = static_cast<int32_t>(into.rules.size());
  for (const grammar::Rule& rule : part.rules) {
    grammar::Rule copy = rule;
    for (grammar::Sequence& alternative : copy.alternatives) {
      for (grammar::Element& e : alternative) {
        if (e.kind == grammar::Element::kRule) e.rule += offset;
      }
    }
    into.rules.push_back(std::move(copy));
  }
  return part.root + offset;
}

}  // namespace vt::server
