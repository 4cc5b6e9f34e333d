// What a constrained request carries: its compiled grammar and the vocabulary the grammar masks
// (shared by every request of the model). The engine keeps one GrammarMatcher per such request.
#pragma once

#include <memory>

#include "engine/grammar/grammar.h"
#include "engine/grammar/mask_cache.h"
#include "engine/grammar/token_vocabulary.h"

namespace vt::grammar {

struct GrammarConstraint {
  std::shared_ptr<const Grammar> grammar;
  std::shared_ptr<const TokenVocabulary> vocabulary;
  std::shared_ptr<MaskCache> masks = std::make_shared<MaskCache>();  // for this grammar and vocabulary
};

}  // namespace vt::grammar
