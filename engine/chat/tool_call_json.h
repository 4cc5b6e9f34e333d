// The JSON shared by the tool-call formats: a call object {"name": .., "arguments" | "parameters":
// {..}} read into a ToolCall, and marker searches that tolerate a marker cut at the end of a chunk.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

#include "engine/chat/tool_call.h"

namespace vt::chat {

// A call object; nullopt unless it has a string name and an object of arguments ("arguments", or
// Llama's "parameters"; or a string holding one, as some models write it). Arguments keep the
// model's key order.
std::optional<ToolCall> CallFromJson(const nlohmann::ordered_json& call);

// Parses JSON text strictly (no exceptions, no comments); nullopt when it is not one JSON value
// or nests deeper than 64 levels.
std::optional<nlohmann::ordered_json> ParseJson(std::string_view text);

// The first occurrence of `marker` in `text` from `from`, else the start of a proper prefix of it
// that ends `text` (partial), else npos.
RegionStart FindMarker(std::string_view text, std::string_view marker, size_t from = 0);

// For formats whose calls are the whole answer: where `text` (the answer so far) starts a region,
// after leading whitespace: at `marker` (a special token, which the engine's text may leave out),
// or, without it, at the JSON value `opener` begins; partial while the text is a proper prefix of
// the marker; npos otherwise.
RegionStart AnswerStart(std::string_view text, std::string_view marker, char opener);

// The offset of the first character that is not JSON whitespace, or text.size().
size_t SkipSpace(std::string_view text, size_t from = 0);

}  // namespace vt::chat
