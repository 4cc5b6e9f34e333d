#include "engine/chat/tool_call_json.h"

#include <algorithm>

namespace vt::chat {

using ordered_json = nlohmann::ordered_json;

namespace {

// Deeper than any tool call's arguments; bounds the recursion of copying and destroying a value
// that a model (which may write anything) nested without end.
constexpr int kMaxDepth = 64;

bool WithinDepth(std::string_view text) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxDepth) return false;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return true;
}

}  // namespace

std::optional<ordered_json> ParseJson(std::string_view text) {
  if (!WithinDepth(text)) return std::nullopt;
  ordered_json value = ordered_json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false,
                                           /*ignore_comments=*/false);
  if (value.is_discarded()) return std::nullopt;
  return value;
}

std::optional<ToolCall> CallFromJson(const ordered_json& call) {
  if (!call.is_object() || !call.contains("name") || !call["name"].is_string()) return std::nullopt;
  const ordered_json* args = nullptr;
  for (const char* key : {"arguments", "parameters"}) {
    if (call.contains(key)) {
      args = &call[key];
      break;
    }
  }
  ToolCall out;
  out.name = call["name"].get<std::string>();
  if (out.name.empty()) return std::nullopt;
  if (args == nullptr) return std::nullopt;
  if (args->is_object()) {
    out.arguments = args->dump(-1, ' ', false, ordered_json::error_handler_t::replace);
  } else if (args->is_string()) {
    std::optional<ordered_json> inner = ParseJson(args->get<std::string>());
    if (!inner || !inner->is_object()) return std::nullopt;
    out.arguments = inner->dump(-1, ' ', false, ordered_json::error_handler_t::replace);
  } else {
    return std::nullopt;
  }
  return out;
}

RegionStart FindMarker(std::string_view text, std::string_view marker, size_t from) {
  const size_t at = text.find(marker, from);
  if (at != std::string_view::npos) return {at, false};
  // Only a suffix shorter than the marker can still grow into it.
  const size_t first = text.size() > marker.size() ? text.size() - marker.size() + 1 : 0;
  for (size_t i = std::max(first, from); i < text.size(); ++i) {
    if (marker.substr(0, text.size() - i) == text.substr(i)) return {i, true};
  }
  return {};
}

RegionStart AnswerStart(std::string_view text, std::string_view marker, char opener) {
  const size_t first = SkipSpace(text);
  if (first == text.size()) return {};
  const std::string_view rest = text.substr(first);
  if (rest.substr(0, marker.size()) == marker) return {first, false};
  if (marker.substr(0, rest.size()) == rest) return {first, true};
  if (rest[0] == opener) return {first, false};
  return {};
}

size_t SkipSpace(std::string_view text, size_t from) {
  while (from < text.size() &&
         (text[from] == ' ' || text[from] == '\n' || text[from] == '\t' || text[from] == '\r')) {
    ++from;
  }
  return from;
}

}  // namespace vt::chat
