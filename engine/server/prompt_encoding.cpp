#include "engine/server/prompt_encoding.h"

namespace vt::server {

std::variant<std::vector<int32_t>, ApiError> EncodePrompt(std::string_view text, bool add_special_tokens,
                                                          const ModelContext& model, const std::string& param) {
  // Every token accounts for at most K input bytes, so a text of B bytes has at least B / K
  // tokens: past K * max_model_len bytes it cannot fit, whatever it says.
  const int64_t k = model.tokenizer->max_input_bytes_per_token();
  const auto bytes = static_cast<int64_t>(text.size());
  if (k > 0 && model.max_model_len > 0 && bytes / k >= model.max_model_len) {
    return BadRequest("the prompt has " + std::to_string(bytes) + " bytes, so at least " + std::to_string(bytes / k) +
                          " tokens, but the context is " + std::to_string(model.max_model_len) + " tokens",
                      param);
  }
  std::vector<int32_t> ids = model.tokenizer->Encode(text, add_special_tokens);
  if (std::optional<ApiError> e = CheckPromptLength(ids.size(), model, param)) return *e;
  return ids;
}

std::optional<ApiError> CheckTokenIds(const std::vector<int32_t>& ids, const ModelContext& model,
                                      const std::string& param) {
  if (model.vocab_size <= 0) return std::nullopt;
  for (int32_t id : ids) {
    if (id >= model.vocab_size) {
      return BadRequest("token id " + std::to_string(id) + " is outside the vocabulary (ids 0.." +
                            std::to_string(model.vocab_size - 1) + ")",
                        param);
    }
  }
  return std::nullopt;
}

std::optional<ApiError> CheckPromptLength(size_t tokens, const ModelContext& model, const std::string& param) {
  if (tokens == 0) return BadRequest("the prompt is empty", param);
  if (static_cast<int64_t>(tokens) >= model.max_model_len) {
    return BadRequest("the prompt has " + std::to_string(tokens) + " tokens but the context is " +
                          std::to_string(model.max_model_len) + " tokens",
                      param);
  }
  return std::nullopt;
}

}  // namespace vt::server
