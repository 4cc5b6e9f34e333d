// The grammar that enforces tool_choice "required" or a named function: the output is one or
// more tool calls (exactly one when parallel_tool_calls is false) in the model's own tool-call
// format, each naming one of `functions` and carrying arguments that validate against that
// function's parameters schema (compiled by engine/grammar's JSON Schema compiler).
#pragma once

#include <string>
#include <vector>

#include "engine/chat/tool_call.h"
#include "base/status.h"
#include "engine/grammar/grammar.h"
#include "engine/server/tool_request.h"

namespace vt::server {

// An error names the function whose parameters schema does not compile.
Result<grammar::Grammar> ToolCallGrammar(chat::ToolCallFormat format,
                                         const std::vector<ToolFunction>& functions, bool parallel);

// The cache key of that grammar: the format, the parallel flag and the functions' schemas.
std::string ToolCallGrammarKey(chat::ToolCallFormat format, const std::vector<ToolFunction>& functions,
                               bool parallel);

}  // namespace vt::server
