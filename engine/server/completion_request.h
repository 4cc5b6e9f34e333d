// Parsing and validation of /v1/completions and /v1/chat/completions bodies into what the
// engine runs. Unknown fields are ignored (benchmark clients send extras); known fields of
// the wrong type, out-of-range values, invalid UTF-8, token ids outside the vocabulary and
// prompts longer than the context are errors naming the field.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "engine/chat/chat_output_parser.h"
#include "engine/sample/sampling_params.h"
#include "engine/server/api_error.h"
#include "engine/server/model_context.h"
#include "engine/server/tool_request.h"

namespace vt::server {

struct CompletionRequest {
  bool chat = false;
  std::vector<std::vector<int32_t>> prompts;  // completions may carry several; chat has one
  SamplingParams params;
  int n = 1;
  bool stream = false;
  bool include_usage = false;
  int logprobs = -1;  // completions: top-n per token (0 = chosen only); chat: top_logprobs when logprobs
  bool chat_logprobs = false;
  // Chat only: the request's tools, and how its output text splits into reasoning, content and
  // tool calls (parse_output false: all of it is content, as before tools existed).
  ToolRequest tools;
  chat::ChatOutputOptions output;
  bool parse_output = false;
};

// A 404 (OpenAI's model_not_found) when the body names a model other than the served one.
std::optional<ApiError> CheckRequestedModel(const nlohmann::json& body, const ModelContext& model);

std::variant<CompletionRequest, ApiError> ParseCompletionRequest(const std::string& body, bool chat,
                                                                 const ModelContext& model);

}  // namespace vt::server
