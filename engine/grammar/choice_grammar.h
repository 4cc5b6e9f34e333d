// vLLM's guided_choice: the output is exactly one of the given strings, verbatim (no JSON quotes),
// as vLLM generates it.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "engine/grammar/grammar.h"

namespace vt::grammar {

// An error when there are no choices or one of them is empty (the output could not be told apart
// from none).
Result<Grammar> ChoiceGrammar(const std::vector<std::string>& choices);

}  // namespace vt::grammar
