#include "engine/grammar/choice_grammar.h"

namespace vt::grammar {

Result<Grammar> ChoiceGrammar(const std::vector<std::string>& choices) {
  if (choices.empty()) return InvalidArgument("there must be at least one choice");
  Grammar g;
  g.root = AddRule(g, "root");
  for (const std::string& c : choices) {
    if (c.empty()) return InvalidArgument("a choice must not be empty");
    g.rules[size_t(g.root)].alternatives.push_back(Literal(c));
  }
  return g;
}

}  // namespace vt::grammar
