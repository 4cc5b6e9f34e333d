#include "engine/grammar/grammar_constraint.h"

#include "engine/grammar/inline_rules.h"

namespace vt::grammar {

std::shared_ptr<const GrammarConstraint> Constrain(Grammar grammar, std::shared_ptr<const TokenVocabulary> vocabulary) {
  auto constraint = std::make_shared<GrammarConstraint>();
  constraint->grammar = std::make_shared<const Grammar>(InlineCharacterRules(std::move(grammar)));
  constraint->vocabulary = std::move(vocabulary);
  constraint->masks = TokenMaskTable::Build(constraint->grammar, *constraint->vocabulary);
  return constraint;
}

}  // namespace vt::grammar
