// What a constrained request carries: its compiled grammar, the vocabulary the grammar masks
// (shared by every request of the model) and the grammar's token mask table for that vocabulary.
// The engine keeps one GrammarMatcher per such request.
#pragma once

#include <memory>

#include "base/status.h"

#include "engine/grammar/grammar.h"
#include "engine/grammar/token_mask_table.h"
#include "engine/grammar/token_vocabulary.h"

namespace vt::grammar {

struct GrammarConstraint {
  std::shared_ptr<const Grammar> grammar;
  std::shared_ptr<const TokenVocabulary> vocabulary;
  std::shared_ptr<const TokenMaskTable> masks;  // null: every step walks the vocabulary
};

// `grammar` over `vocabulary`: its character rules inlined and its mask table built (the costly part
// of compiling a grammar).
// An error when the table would be too large to build (TokenMaskTable::Build).
Result<std::shared_ptr<const GrammarConstraint>> Constrain(Grammar grammar,
                                                           std::shared_ptr<const TokenVocabulary> vocabulary);

}  // namespace vt::grammar
