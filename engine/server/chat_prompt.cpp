#include "engine/server/chat_prompt.h"

#include <optional>

#include "engine/server/bounded_json.h"
#include "engine/tokenizer/utf8.h"

namespace vt::server {
namespace {

using json = nlohmann::ordered_json;

bool ValidUtf8(const std::string& s) { return CompleteUtf8Prefix(s) == s.size() && SanitizeUtf8(s) == s; }

// A message's content as one string: a string, null, or a list of text parts.
std::variant<std::string, ApiError> MessageText(const json& content, size_t index) {
  const std::string param = "messages[" + std::to_string(index) + "].content";
  if (content.is_string()) return content.get<std::string>();
  if (content.is_null()) return std::string();
  if (!content.is_array()) return BadRequest("'" + param + "' must be a string or a list of parts", param);
  std::string text;
  for (const json& part : content) {
    if (!part.is_object() || !part.contains("type") || part["type"] != "text" || !part.contains("text") ||
        !part["text"].is_string()) {
      return BadRequest("'" + param + "' parts must be {\"type\": \"text\", \"text\": ...}", param);
    }
    text += part["text"].get<std::string>();
  }
  return text;
}

// An assistant message's tool_calls as templates read them: OpenAI sends each call's arguments
// as a JSON string, templates (Llama 3.1's, Mistral's) write them with `| tojson`, so a string
// that holds a JSON object becomes that object, as vLLM passes it; templates that accept either
// (Qwen3's) render both the same way.
std::optional<ApiError> PrepareToolCalls(json& message, size_t index) {
  if (!message.contains("tool_calls") || message["tool_calls"].is_null()) return std::nullopt;
  const std::string param = "messages[" + std::to_string(index) + "].tool_calls";
  json& calls = message["tool_calls"];
  if (!calls.is_array()) return BadRequest("'" + param + "' must be a list of tool calls", "messages");
  for (json& call : calls) {
    if (!call.is_object() || !call.contains("function") || !call["function"].is_object() ||
        !call["function"].contains("name") || !call["function"]["name"].is_string()) {
      return BadRequest("'" + param + "' entries must be {\"function\": {\"name\": ..., \"arguments\": ...}}",
                        "messages");
    }
    json& fn = call["function"];
    if (fn.contains("arguments") && fn["arguments"].is_string()) {
      Result<json> parsed = ParseBoundedOrderedJson(fn["arguments"].get<std::string>());
      if (!parsed.ok() || !parsed->is_object()) {
        return BadRequest("'" + param + "' arguments must be a JSON object (as a string)", "messages");
      }
      fn["arguments"] = std::move(*parsed);
    }
  }
  return std::nullopt;
}

}  // namespace

std::variant<std::string, ApiError> RenderChatPrompt(std::string_view body_text, const ModelContext& model) {
  // Parsed again, keeping the client's key order, which the rendered tools and arguments follow.
  Result<json> parsed = ParseBoundedOrderedJson(body_text);
  if (!parsed.ok()) return BadRequest("the request body " + parsed.status().message());
  json& body = *parsed;
  if (!body.is_object() || !body.contains("messages") || !body["messages"].is_array()) {
    return BadRequest("'messages' must be a list of messages", "messages");
  }
  json& messages = body["messages"];
  if (messages.empty()) return BadRequest("'messages' must not be empty", "messages");
  if (!model.chat_template || !model.tokenizer) {
    return BadRequest("this model has no chat template; use /v1/completions", "messages");
  }
  for (size_t i = 0; i < messages.size(); ++i) {
    json& m = messages[i];
    if (!m.is_object() || !m.contains("role") || !m["role"].is_string()) {
      return BadRequest("messages[" + std::to_string(i) + "] needs a string 'role'", "messages");
    }
    std::variant<std::string, ApiError> text = MessageText(m.contains("content") ? m["content"] : json(nullptr), i);
    if (auto* e = std::get_if<ApiError>(&text)) return *e;
    std::string& t = std::get<std::string>(text);
    if (!ValidUtf8(t)) return BadRequest("messages[" + std::to_string(i) + "].content is not valid UTF-8", "messages");
    m["content"] = std::move(t);
    if (std::optional<ApiError> e = PrepareToolCalls(m, i)) return *e;
  }
  json ctx = model.template_globals;
  ctx["add_generation_prompt"] = !body.contains("add_generation_prompt") ||
                                 !body["add_generation_prompt"].is_boolean() ||
                                 body["add_generation_prompt"].get<bool>();
  ctx["messages"] = std::move(messages);
  for (const char* key : {"tools", "documents"}) {
    if (body.contains(key)) ctx[key] = std::move(body[key]);
  }
  if (body.contains("chat_template_kwargs") && body["chat_template_kwargs"].is_object()) {
    for (auto& [key, value] : body["chat_template_kwargs"].items()) ctx[key] = std::move(value);
  }
  Result<std::string> rendered = model.chat_template->Render(ctx);
  if (!rendered.ok()) return BadRequest(rendered.status().message(), "messages");
  return std::move(rendered.value());
}

}  // namespace vt::server
