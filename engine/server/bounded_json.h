// Request bodies are parsed with a nesting limit that is enforced while parsing. A body of a
// million '[' would otherwise become a million-deep tree, and copying, rendering or destroying
// it recurses once per level: one unauthenticated request overflowed the server's stack
// (issue #14). Parsing stops at the first value deeper than the limit, so nothing after it ever
// holds a tree deeper than that.
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace vt::server {

// Deeper than any request of the OpenAI API needs (tools' JSON schemas nest a handful of levels).
inline constexpr int kMaxJsonDepth = 64;

// The JSON value in `text`, or InvalidArgument saying why not, worded to follow "the request body":
// "is not valid JSON: ...", or "nests deeper than 64 levels ..." (naming the limit).
Result<nlohmann::json> ParseBoundedJson(std::string_view text, int max_depth = kMaxJsonDepth);
// The same with objects in their text's key order (what chat templates render).
Result<nlohmann::ordered_json> ParseBoundedOrderedJson(std::string_view text, int max_depth = kMaxJsonDepth);

}  // namespace vt::server
