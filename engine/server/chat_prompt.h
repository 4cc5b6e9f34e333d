// The prompt text of a chat request: its messages (and tools, documents, chat_template_kwargs)
// rendered through the model's chat template. Shared by /v1/chat/completions and /tokenize.
#pragma once

#include <string>
#include <variant>

#include <nlohmann/json.hpp>

#include "engine/server/api_error.h"
#include "engine/server/model_context.h"

namespace vt::server {

// Moves the fields it renders out of `body` rather than copying them: they can be large.
std::variant<std::string, ApiError> RenderChatPrompt(nlohmann::json& body, const ModelContext& model);

}  // namespace vt::server
