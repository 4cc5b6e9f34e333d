// Prompts as token ids, checked against the model before anything is queued: ids inside the
// vocabulary, and fewer tokens than the context. A text prompt far longer than the context is
// refused from its byte length alone, before tokenizing it (a 7 MB prompt took ~4.7 s to
// tokenize only to be refused for length).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "engine/server/api_error.h"
#include "engine/server/model_context.h"

namespace vt::server {

// The tokens of `text` (the model must have a tokenizer), or a 400 naming `param` when the text
// cannot fit the context.
std::variant<std::vector<int32_t>, ApiError> EncodePrompt(std::string_view text, bool add_special_tokens,
                                                          const ModelContext& model, const std::string& param);

// A 400 naming the first id outside the model's vocabulary, if any.
std::optional<ApiError> CheckTokenIds(const std::vector<int32_t>& ids, const ModelContext& model,
                                      const std::string& param);

// A 400 when a prompt of `tokens` tokens leaves no room in the context (or is empty).
std::optional<ApiError> CheckPromptLength(size_t tokens, const ModelContext& model, const std::string& param);

}  // namespace vt::server
