// vLLM's /tokenize and /detokenize: the model's tokenizer over HTTP, in vLLM's shapes.
//   /tokenize   {"prompt": TEXT} or {"messages": [...]}  -> {"tokens", "count", "max_model_len"}
//   /detokenize {"tokens": [ids]}                        -> {"prompt": TEXT}
#pragma once

#include <string>
#include <variant>

#include <nlohmann/json.hpp>

#include "engine/server/api_error.h"
#include "engine/server/model_context.h"

namespace vt::server {

std::variant<nlohmann::json, ApiError> Tokenize(const std::string& body, const ModelContext& model);
std::variant<nlohmann::json, ApiError> Detokenize(const std::string& body, const ModelContext& model);

}  // namespace vt::server
