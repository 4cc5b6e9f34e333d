#include "engine/server/completion_request.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "engine/server/bounded_json.h"
#include "engine/server/chat_prompt.h"
#include "engine/server/prompt_encoding.h"
#include "engine/server/structured_output.h"
#include "engine/tokenizer/utf8.h"

namespace vt::server {
namespace {

using json = nlohmann::json;

bool ValidUtf8(const std::string& s) { return CompleteUtf8Prefix(s) == s.size() && SanitizeUtf8(s) == s; }

// Reads an optional numeric field; false (with the error set) when it has the wrong type or does
// not fit T (a cast of an out-of-range number would be undefined behaviour, not an error).
template <typename T>
bool Number(const json& body, const char* key, T* out, ApiError* err) {
  if (!body.contains(key) || body[key].is_null()) return true;
  const json& v = body[key];
  if (!v.is_number() || (std::is_integral_v<T> && !v.is_number_integer())) {
    *err = BadRequest(std::string("'") + key + "' must be a " + (std::is_integral_v<T> ? "integer" : "number"), key);
    return false;
  }
  const double d = v.get<double>();
  if (!(d >= double(std::numeric_limits<T>::lowest()) && d <= double(std::numeric_limits<T>::max())) ||
      (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max()))) {
    *err = BadRequest(std::string("'") + key + "' is out of range", key);
    return false;
  }
  *out = std::is_integral_v<T> ? static_cast<T>(v.get<int64_t>()) : static_cast<T>(d);
  return true;
}

// A JSON boolean field, false when absent or null; `value(key, false)` would throw on any other type.
bool Flag(const json& object, const char* key) {
  if (!object.contains(key) || !object[key].is_boolean()) return false;
  return object[key].get<bool>();
}

bool IsTokenId(const json& j) {
  return j.is_number_integer() && j.get<int64_t>() >= 0 && j.get<int64_t>() <= std::numeric_limits<int32_t>::max() &&
         !(j.is_number_unsigned() && j.get<uint64_t>() > uint64_t(std::numeric_limits<int32_t>::max()));
}

bool AllTokenIds(const json& a) { return std::all_of(a.begin(), a.end(), IsTokenId); }

// presence_penalty, frequency_penalty, repetition_penalty, logit_bias and min_tokens, with OpenAI's
// and vLLM's ranges. logit_bias keys are token ids as strings (JSON keys are strings).
std::optional<ApiError> ParseLogitsAdjustments(const json& body, const ModelContext& model, SamplingParams* params) {
  ApiError err;
  if (!Number(body, "presence_penalty", &params->presence_penalty, &err) ||
      !Number(body, "frequency_penalty", &params->frequency_penalty, &err) ||
      !Number(body, "repetition_penalty", &params->repetition_penalty, &err) ||
      !Number(body, "min_tokens", &params->min_tokens, &err)) {
    return err;
  }
  for (const char* key : {"presence_penalty", "frequency_penalty"}) {
    const float v = std::string(key) == "presence_penalty" ? params->presence_penalty : params->frequency_penalty;
    if (v < -2.0f || v > 2.0f) return BadRequest(std::string("'") + key + "' must be in [-2, 2]", key);
  }
  if (!(params->repetition_penalty > 0.0f)) return BadRequest("'repetition_penalty' must be > 0", "repetition_penalty");
  if (params->min_tokens < 0) return BadRequest("'min_tokens' must be >= 0", "min_tokens");
  if (!body.contains("logit_bias") || body["logit_bias"].is_null()) return std::nullopt;
  const json& bias = body["logit_bias"];
  if (!bias.is_object()) return BadRequest("'logit_bias' must be an object of token ids to numbers", "logit_bias");
  const int64_t vocab = model.vocab_size > 0 ? model.vocab_size : std::numeric_limits<int32_t>::max();
  for (const auto& [key, value] : bias.items()) {
    const bool digits = !key.empty() && key.size() <= 10 &&
                        std::all_of(key.begin(), key.end(), [](char c) { return c >= '0' && c <= '9'; });
    const int64_t id = digits ? std::stoll(key) : -1;
    if (id < 0 || id >= vocab) {
      return BadRequest("'logit_bias' key '" + key + "' is not a token id of the vocabulary (0.." +
                            std::to_string(vocab - 1) + ")",
                        "logit_bias");
    }
    if (!value.is_number() || !(value.get<double>() >= -100.0 && value.get<double>() <= 100.0)) {
      return BadRequest("'logit_bias' value of token " + key + " must be a number in [-100, 100]", "logit_bias");
    }
    params->logit_bias.emplace_back(static_cast<int32_t>(id), value.get<float>());
  }
  return std::nullopt;
}

}  // namespace

std::optional<ApiError> CheckRequestedModel(const json& body, const ModelContext& model) {
  if (!body.contains("model") || body["model"].is_null()) return std::nullopt;
  if (!body["model"].is_string()) return BadRequest("'model' must be a string", "model");
  if (body["model"].get<std::string>() == model.served_name) return std::nullopt;
  return ApiError{404, "The model '" + body["model"].get<std::string>() + "' does not exist.", "NotFoundError", "model",
                  "model_not_found"};
}

std::variant<CompletionRequest, ApiError> ParseCompletionRequest(const std::string& body_text, bool chat,
                                                                 const ModelContext& model) {
  Result<json> parsed = ParseBoundedJson(body_text);
  if (!parsed.ok()) return BadRequest("the request body " + parsed.status().message());
  json& body = parsed.value();
  if (!body.is_object()) return BadRequest("the request body must be a JSON object");
  if (std::optional<ApiError> e = CheckRequestedModel(body, model)) return *e;

  CompletionRequest r;
  r.chat = chat;
  ApiError err;
  int64_t max_tokens = 16;
  if (chat) max_tokens = -1;  // chat: up to the context unless asked
  if (!Number(body, "max_tokens", &max_tokens, &err) || !Number(body, "max_completion_tokens", &max_tokens, &err) ||
      !Number(body, "temperature", &r.params.temperature, &err) || !Number(body, "top_p", &r.params.top_p, &err) ||
      !Number(body, "top_k", &r.params.top_k, &err) || !Number(body, "min_p", &r.params.min_p, &err) ||
      !Number(body, "n", &r.n, &err)) {
    return err;
  }
  if (body.contains("max_tokens") && !body["max_tokens"].is_null() && max_tokens < 1) {
    return BadRequest("'max_tokens' must be at least 1", "max_tokens");
  }
  if (body.contains("max_completion_tokens") && !body["max_completion_tokens"].is_null() && max_tokens < 1) {
    return BadRequest("'max_completion_tokens' must be at least 1", "max_completion_tokens");
  }
  if (r.params.temperature < 0) return BadRequest("'temperature' must be >= 0", "temperature");
  if (r.params.top_p <= 0 || r.params.top_p > 1) return BadRequest("'top_p' must be in (0, 1]", "top_p");
  if (r.params.min_p < 0 || r.params.min_p > 1) return BadRequest("'min_p' must be in [0, 1]", "min_p");
  if (r.n < 1 || r.n > 16) return BadRequest("'n' must be between 1 and 16", "n");
  if (body.contains("seed") && !body["seed"].is_null()) {
    if (!body["seed"].is_number_integer()) return BadRequest("'seed' must be an integer", "seed");
    r.params.seed = static_cast<uint64_t>(body["seed"].get<int64_t>());
  }
  for (const char* key : {"stream", "ignore_eos", "logprobs"}) {
    if (body.contains(key) && !body[key].is_null() && !body[key].is_boolean() &&
        !(std::string(key) == "logprobs" && !chat && body[key].is_number_integer())) {
      return BadRequest(std::string("'") + key + "' has the wrong type", key);
    }
  }
  r.stream = Flag(body, "stream");
  r.params.ignore_eos = Flag(body, "ignore_eos");
  if (body.contains("stream_options") && body["stream_options"].is_object()) {
    r.include_usage = Flag(body["stream_options"], "include_usage");
  }
  if (body.contains("stop") && !body["stop"].is_null()) {
    const json& stop = body["stop"];
    std::vector<std::string>& strings = r.params.stop;
    if (stop.is_string()) {
      strings.push_back(stop.get<std::string>());
    } else if (stop.is_array() && std::all_of(stop.begin(), stop.end(), [](const json& s) { return s.is_string(); })) {
      for (const json& s : stop) strings.push_back(s.get<std::string>());
    } else {
      return BadRequest("'stop' must be a string or a list of strings", "stop");
    }
    strings.erase(std::remove(strings.begin(), strings.end(), std::string()), strings.end());
    if (strings.size() > 16) return BadRequest("at most 16 stop strings", "stop");
    // The engine matches stop strings in the text its detokenizer makes.
    if (!strings.empty() && !model.tokenizer) {
      return BadRequest("'stop' strings need a tokenizer, and this model has none (use stop_token_ids)", "stop");
    }
  }
  if (body.contains("stop_token_ids") && !body["stop_token_ids"].is_null()) {
    const json& ids = body["stop_token_ids"];
    if (!ids.is_array() || !AllTokenIds(ids)) {
      return BadRequest("'stop_token_ids' must be a list of token ids", "stop_token_ids");
    }
    r.params.stop_token_ids = ids.get<std::vector<int32_t>>();
  }
  if (chat) {
    if (Flag(body, "logprobs")) {
      r.chat_logprobs = true;
      int top = 0;
      if (!Number(body, "top_logprobs", &top, &err)) return err;
      if (top < 0 || top > 20) return BadRequest("'top_logprobs' must be between 0 and 20", "top_logprobs");
      r.logprobs = top;
    }
  } else if (body.contains("logprobs") && body["logprobs"].is_number_integer()) {
    if (!Number(body, "logprobs", &r.logprobs, &err)) return err;
    if (r.logprobs < 0 || r.logprobs > 20) return BadRequest("'logprobs' must be between 0 and 20", "logprobs");
  }
  r.params.logprobs = r.logprobs;
  if (std::optional<ApiError> e = ParseLogitsAdjustments(body, model, &r.params)) return *e;
  if (!chat) {
    if (std::optional<ApiError> e = ParseStructuredOutput(body, model, nullptr, std::nullopt, &r.params))
      return *e;
  }

  // Prompts.
  const std::string param = chat ? "messages" : "prompt";
  if (chat) {
    std::variant<ToolRequest, ApiError> tools = ParseToolRequest(body, model);
    if (auto* e = std::get_if<ApiError>(&tools)) return *e;
    r.tools = std::move(std::get<ToolRequest>(tools));
    std::variant<std::string, ApiError> text = RenderChatPrompt(body_text, model);
    if (auto* e = std::get_if<ApiError>(&text)) return *e;
    // Where the output starts (inside a reasoning block the prompt opened, say) is known only
    // from the rendered prompt; a grammar applies after the reasoning.
    std::optional<chat::ReasoningStart> reasoning;
    if (model.reasoning_format != chat::ReasoningFormat::kNone)
      reasoning = chat::ReasoningStartOf(std::get<std::string>(text));
    if (std::optional<ApiError> e = ParseStructuredOutput(body, model, &r.tools, reasoning, &r.params))
      return *e;
    r.output.reasoning = model.reasoning_format;
    r.output.reasoning_start = reasoning.value_or(chat::ReasoningStart::kMaybe);
    if (r.tools.choice != ToolRequest::Choice::kNone) r.output.tools = model.tool_call_format;
    r.output.max_calls = r.tools.parallel ? SIZE_MAX : 1;
    for (const ToolFunction& f : r.tools.functions) r.output.tool_names.push_back(f.name);
    r.parse_output =
        r.output.reasoning != chat::ReasoningFormat::kNone || r.output.tools != chat::ToolCallFormat::kNone;
    std::variant<std::vector<int32_t>, ApiError> ids =
        EncodePrompt(std::get<std::string>(text), /*add_special_tokens=*/false, model, param);
    if (auto* e = std::get_if<ApiError>(&ids)) return *e;
    r.prompts.push_back(std::move(std::get<std::vector<int32_t>>(ids)));
  } else {
    if (!body.contains("prompt")) return BadRequest("'prompt' is required", param);
    const json& p = body["prompt"];
    std::optional<ApiError> error;
    auto add_text = [&](const json& s) -> bool {
      if (!model.tokenizer || !ValidUtf8(s.get_ref<const std::string&>())) return false;
      std::variant<std::vector<int32_t>, ApiError> ids =
          EncodePrompt(s.get_ref<const std::string&>(), /*add_special_tokens=*/true, model, param);
      if (auto* e = std::get_if<ApiError>(&ids)) {
        error = *e;
      } else {
        r.prompts.push_back(std::move(std::get<std::vector<int32_t>>(ids)));
      }
      return true;
    };
    bool ok = true;
    if (p.is_string()) {
      ok = add_text(p);
    } else if (p.is_array() && !p.empty() && AllTokenIds(p)) {
      r.prompts.push_back(p.get<std::vector<int32_t>>());
    } else if (p.is_array() && !p.empty()) {
      for (const json& item : p) {
        if (!ok || error) break;
        if (item.is_string()) ok = add_text(item);
        else if (item.is_array() && !item.empty() && AllTokenIds(item)) r.prompts.push_back(item.get<std::vector<int32_t>>());
        else ok = false;
      }
    } else {
      ok = false;
    }
    if (!ok) {
      return BadRequest(model.tokenizer ? "'prompt' must be valid UTF-8 text, a list of texts, or token ids"
                                        : "'prompt' must be token ids: this model has no tokenizer",
                        param);
    }
    if (error) return *error;
  }
  for (const auto& p : r.prompts) {
    if (std::optional<ApiError> e = CheckTokenIds(p, model, param)) return *e;
    if (std::optional<ApiError> e = CheckPromptLength(p.size(), model, param)) return *e;
  }
  const int64_t longest = static_cast<int64_t>(
      std::max_element(r.prompts.begin(), r.prompts.end(), [](const auto& a, const auto& b) { return a.size() < b.size(); })->size());
  const int64_t room = model.max_model_len - longest;
  r.params.max_tokens = max_tokens < 0 ? room : std::min(max_tokens, room);
  if (r.params.min_tokens > r.params.max_tokens) {
    return BadRequest("'min_tokens' (" + std::to_string(r.params.min_tokens) + ") is above max_tokens (" +
                          std::to_string(r.params.max_tokens) + ")",
                      "min_tokens");
  }
  return r;
}

}  // namespace vt::server
