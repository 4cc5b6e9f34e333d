// The assistant message of a chat completion in OpenAI's shape, whole or as stream deltas:
// content (null when the model only called tools or only reasoned), reasoning_content, and
// tool_calls with ids; streamed calls are sent as OpenAI sends them, the id, type and name in
// the call's first fragment and its arguments in the next, which the SDKs join by index.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/chat/chat_output_parser.h"

namespace vt::server {

// "call_" and 24 random letters and digits.
std::string NewToolCallId();

struct AssistantMessage {
  std::string content;
  std::string reasoning;
  std::vector<chat::ToolCall> calls;
  std::vector<std::string> call_ids;  // one per call
};

// `with_reasoning`: the model's reasoning is split off, so reasoning_content is present (null when empty).
nlohmann::json MessageJson(const AssistantMessage& message, bool with_reasoning);

// The deltas one piece of parsed output becomes: reasoning and content first, then two
// fragments per call. `first_call_index`: the index of delta.calls[0] in the whole message.
std::vector<nlohmann::json> DeltaJson(const chat::ChatDelta& delta, const std::vector<std::string>& call_ids,
                                      size_t first_call_index);

}  // namespace vt::server
