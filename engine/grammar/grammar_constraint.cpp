#include "engine/grammar/grammar_constraint.h"

#include "engine/grammar/inline_rules.h"

namespace vt::grammar {

Result<std::shared_ptr<const GrammarConstraint>> Constrain(Grammar grammar,
                                                           std::shared_ptr<const TokenVocabulary> vocabulary) {
  auto constraint = std::make_shared<GrammarConstraint>();
  constraint->grammar = std::make_shared<const Grammar>(InlineCharacterRules(std::move(grammar)));
  constraint->vocabulary = std::move(vocabulary);
  Result<std::shared_ptr<const TokenMaskTable>> masks = TokenMaskTable::Build(constraint->grammar, *constraint->vocabulary);
  if (!masks.ok()) return masks.status();
  constraint->masks = std::move(*masks);
  return std::shared_ptr<const GrammarConstraint>(std::move(constraint));
}

}  // namespace vt::grammar
