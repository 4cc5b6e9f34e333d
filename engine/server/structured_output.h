// Structured outputs: response_format (json_object, json_schema; text is plain), vLLM's
// guided_json, guided_choice, guided_regex and guided_grammar (GBNF), and the same inside vLLM's
// structured_outputs object (json, json_object, choice, regex, grammar), compiled (through the
// model's GrammarCache) into the request's grammar, as is the tool-call grammar of tool_choice
// "required" or a named function. A source vt cannot compile (a schema keyword, a regex construct,
// a grammar's error) is a 400 naming the field: a caller that relies on a constraint must not get
// free text instead. For a model that reasons, the grammar applies to the answer after the
// reasoning block.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>

#include "engine/chat/reasoning_stream.h"
#include "engine/sample/sampling_params.h"
#include "engine/server/api_error.h"
#include "engine/server/model_context.h"
#include "engine/server/tool_request.h"

namespace vt::server {

// `tools`: the chat request's tools (null for /v1/completions, which refuses a forcing
// tool_choice). `reasoning`: where the output starts for a model that reasons (none: no split).
std::optional<ApiError> ParseStructuredOutput(const nlohmann::json& body, const ModelContext& model,
                                              const ToolRequest* tools,
                                              std::optional<chat::ReasoningStart> reasoning,
                                              SamplingParams* params);

}  // namespace vt::server
