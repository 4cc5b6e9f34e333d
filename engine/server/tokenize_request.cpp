#include "engine/server/tokenize_request.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "engine/server/bounded_json.h"
#include "engine/server/chat_prompt.h"
#include "engine/server/completion_request.h"
#include "engine/server/prompt_encoding.h"
#include "engine/tokenizer/utf8.h"

namespace vt::server {
namespace {

using json = nlohmann::json;

// The request object, or the error that a body which is not one deserves.
std::variant<json, ApiError> Body(const std::string& text, const ModelContext& model) {
  Result<json> parsed = ParseBoundedJson(text);
  if (!parsed.ok()) return BadRequest("the request body " + parsed.status().message());
  if (!parsed->is_object()) return BadRequest("the request body must be a JSON object");
  if (std::optional<ApiError> e = CheckRequestedModel(*parsed, model)) return *e;
  if (!model.tokenizer) return BadRequest("this model has no tokenizer");
  return std::move(parsed.value());
}

// vLLM's default: special tokens for a plain prompt, none for chat (the template has them).
std::optional<bool> AddSpecialTokens(const json& body, bool chat) {
  if (!body.contains("add_special_tokens") || body["add_special_tokens"].is_null()) return !chat;
  if (!body["add_special_tokens"].is_boolean()) return std::nullopt;
  return body["add_special_tokens"].get<bool>();
}

}  // namespace

std::variant<json, ApiError> Tokenize(const std::string& text, const ModelContext& model) {
  std::variant<json, ApiError> parsed = Body(text, model);
  if (auto* e = std::get_if<ApiError>(&parsed)) return *e;
  json& body = std::get<json>(parsed);
  const bool chat = body.contains("messages");
  const std::optional<bool> add_special = AddSpecialTokens(body, chat);
  if (!add_special) return BadRequest("'add_special_tokens' must be a boolean", "add_special_tokens");
  std::string prompt;
  if (chat) {
    std::variant<std::string, ApiError> rendered = RenderChatPrompt(text, model);
    if (auto* e = std::get_if<ApiError>(&rendered)) return *e;
    prompt = std::move(std::get<std::string>(rendered));
  } else {
    if (!body.contains("prompt") || !body["prompt"].is_string()) {
      return BadRequest("'prompt' (a string) or 'messages' is required", "prompt");
    }
    prompt = body["prompt"].get<std::string>();
    if (CompleteUtf8Prefix(prompt) != prompt.size() || SanitizeUtf8(prompt) != prompt) {
      return BadRequest("'prompt' is not valid UTF-8", "prompt");
    }
  }
  const std::vector<int32_t> tokens = model.tokenizer->Encode(prompt, *add_special);
  return json{{"tokens", tokens},
              {"count", tokens.size()},
              {"max_model_len", model.max_model_len},
              {"token_strs", nullptr}};
}

std::variant<json, ApiError> Detokenize(const std::string& text, const ModelContext& model) {
  std::variant<json, ApiError> parsed = Body(text, model);
  if (auto* e = std::get_if<ApiError>(&parsed)) return *e;
  const json& body = std::get<json>(parsed);
  const bool ids = body.contains("tokens") && body["tokens"].is_array() &&
                   std::all_of(body["tokens"].begin(), body["tokens"].end(), [](const json& t) {
                     return t.is_number_integer() && t.get<int64_t>() >= 0 &&
                            t.get<int64_t>() <= std::numeric_limits<int32_t>::max();
                   });
  if (!ids) return BadRequest("'tokens' must be a list of token ids", "tokens");
  const std::vector<int32_t> tokens = body["tokens"].get<std::vector<int32_t>>();
  if (std::optional<ApiError> e = CheckTokenIds(tokens, model, "tokens")) return *e;
  return json{{"prompt", model.tokenizer->Decode(tokens, /*skip_special_tokens=*/false)}};
}

}  // namespace vt::server
