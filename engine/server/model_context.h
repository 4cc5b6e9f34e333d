// What the HTTP layer knows of the served model: its name, tokenizer, chat template, output
// formats and limits.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "engine/chat/chat_template.h"
#include "engine/chat/reasoning_stream.h"
#include "engine/chat/tool_call.h"
#include "engine/server/grammar_cache.h"
#include "engine/tokenizer/tokenizer.h"

namespace vt::server {

struct ModelContext {
  std::string served_name;
  std::shared_ptr<const Tokenizer> tokenizer;        // null: prompts must be token ids
  std::shared_ptr<const ChatTemplate> chat_template;  // null: chat is refused
  nlohmann::json template_globals;                    // bos_token, eos_token
  int64_t max_model_len = 0;
  int64_t vocab_size = 0;  // the model's embedding rows; 0: token ids are not checked here
  std::shared_ptr<GrammarCache> grammars;  // null (no tokenizer): structured outputs are refused
  // How the model writes tool calls and reasoning (--tool-call-parser, --reasoning-parser, or
  // recognised from the chat template); kNone: requests with tools are refused.
  chat::ToolCallFormat tool_call_format = chat::ToolCallFormat::kNone;
  chat::ReasoningFormat reasoning_format = chat::ReasoningFormat::kNone;
};

}  // namespace vt::server
