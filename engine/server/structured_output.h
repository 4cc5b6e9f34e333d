// Structured outputs: response_format (json_object, json_schema; text is plain), vLLM's
// guided_json and guided_choice, and the same two inside vLLM's structured_outputs object,
// compiled (through the model's GrammarCache) into the request's grammar. Fields vt knows but
// cannot honour (guided_regex, guided_grammar, tool_choice "required" or a named function) are a
// 400 naming the field: a caller that relies on a constraint must not get free text instead.
#pragma once

#include <optional>

#include <nlohmann/json.hpp>

#include "engine/sample/sampling_params.h"
#include "engine/server/api_error.h"
#include "engine/server/model_context.h"

namespace vt::server {

std::optional<ApiError> ParseStructuredOutput(const nlohmann::json& body, const ModelContext& model,
                                              SamplingParams* params);

}  // namespace vt::server
