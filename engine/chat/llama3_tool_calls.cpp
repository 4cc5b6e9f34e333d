// Llama 3.1+ JSON tool calls: when the model calls tools its whole answer is the calls, each a JSON
// object {"name": .., "parameters": {..}}, separated by ';' (as vLLM's llama3_json parser reads
// them), optionally after <|python_tag|>. The tag is a special token, which the engine's text
// leaves out, so an answer that starts with '{' is a candidate too; one that does not parse is
// plain content.
#include <string_view>

#include "engine/chat/tool_call.h"
#include "engine/chat/tool_call_json.h"

namespace vt::chat {
namespace {

constexpr std::string_view kPythonTag = "<|python_tag|>";

class Llama3Json final : public ToolCallSyntax {
 public:
  RegionStart FindStart(std::string_view text, bool at_answer_start) const override {
    return at_answer_start ? AnswerStart(text, kPythonTag, '{') : RegionStart{};
  }

  size_t RegionLength(std::string_view) const override { return std::string_view::npos; }

  std::optional<std::vector<ToolCall>> ParseRegion(std::string_view region) const override {
    if (region.substr(0, kPythonTag.size()) == kPythonTag) region.remove_prefix(kPythonTag.size());
    std::vector<ToolCall> calls;
    // Split on ';' between top-level objects: a ';' inside a string is no separator, so each
    // candidate split is only taken when the text before it parses.
    size_t begin = 0;
    size_t search = 0;
    while (begin < region.size()) {
      const size_t semi = region.find(';', search);
      const std::string_view piece =
          region.substr(begin, semi == std::string_view::npos ? semi : semi - begin);
      std::optional<nlohmann::ordered_json> value = ParseJson(piece);
      if (!value) {
        if (semi == std::string_view::npos) return std::nullopt;
        search = semi + 1;
        continue;
      }
      std::optional<ToolCall> call = CallFromJson(*value);
      if (!call) return std::nullopt;
      calls.push_back(std::move(*call));
      if (semi == std::string_view::npos) break;
      begin = search = semi + 1;
      if (SkipSpace(region, begin) == region.size()) break;
    }
    if (calls.empty()) return std::nullopt;
    return calls;
  }
};

}  // namespace

std::unique_ptr<const ToolCallSyntax> Llama3JsonToolCalls() { return std::make_unique<Llama3Json>(); }

}  // namespace vt::chat
