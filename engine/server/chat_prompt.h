// The prompt text of a chat request: its messages (and tools, documents, chat_template_kwargs)
// rendered through the model's chat template. Shared by /v1/chat/completions and /tokenize.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <variant>

#include "engine/server/api_error.h"
#include "engine/server/model_context.h"

namespace vt::server {

// `body_text`: the request body, already checked to be a JSON object (it is parsed again here,
// keeping its keys' order for the template).
std::variant<std::string, ApiError> RenderChatPrompt(std::string_view body_text, const ModelContext& model);

}  // namespace vt::server
