// Parsing and validation of /v1/completions and /v1/chat/completions bodies into what the
// engine runs. Unknown fields are ignored (benchmark clients send extras); known fields of
// the wrong type, out-of-range values, invalid UTF-8 and prompts longer than the context are
// errors naming the field.
#pragma once

#include <memory>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/chat/chat_template.h"
#include "engine/sample/sampling_params.h"
#include "engine/server/api_error.h"
#include "engine/tokenizer/tokenizer.h"

namespace vt::server {

struct ModelContext {
  std::string served_name;
  std::shared_ptr<const Tokenizer> tokenizer;        // null: prompts must be token ids
  std::shared_ptr<const ChatTemplate> chat_template;  // null: chat is refused
  nlohmann::json template_globals;                    // bos_token, eos_token
  int64_t max_model_len = 0;
};

struct CompletionRequest {
  bool chat = false;
  std::vector<std::vector<int32_t>> prompts;  // completions may carry several; chat has one
  SamplingParams params;
  int n = 1;
  bool stream = false;
  bool include_usage = false;
  std::vector<std::string> stop;
  int logprobs = -1;  // completions: top-n per token (0 = chosen only); chat: top_logprobs when logprobs
  bool chat_logprobs = false;
};

std::variant<CompletionRequest, ApiError> ParseCompletionRequest(const std::string& body, bool chat,
                                                                 const ModelContext& model);

}  // namespace vt::server
