// Mistral tool calls: [TOOL_CALLS] and then a JSON list of {"name": .., "arguments": {..}} to the
// end of the answer; text before the marker is content. [TOOL_CALLS] is a special token, which
// the engine's text leaves out, so an answer that starts with '[' is a candidate too; one that
// does not parse as calls is plain content.
#include <string_view>

#include "engine/chat/tool_call.h"
#include "engine/chat/tool_call_json.h"

namespace vt::chat {
namespace {

constexpr std::string_view kMarker = "[TOOL_CALLS]";

class Mistral final : public ToolCallSyntax {
 public:
  RegionStart FindStart(std::string_view text, bool at_answer_start) const override {
    if (at_answer_start) {
      const RegionStart start = AnswerStart(text, kMarker, '[');
      if (start.pos != std::string_view::npos) return start;
    }
    return FindMarker(text, kMarker);
  }

  size_t RegionLength(std::string_view) const override { return std::string_view::npos; }

  std::optional<std::vector<ToolCall>> ParseRegion(std::string_view region) const override {
    if (region.substr(0, kMarker.size()) == kMarker) region.remove_prefix(kMarker.size());
    std::optional<nlohmann::ordered_json> list = ParseJson(region);
    if (!list) return std::nullopt;
    if (list->is_object()) list = nlohmann::ordered_json::array({*list});
    if (!list->is_array() || list->empty()) return std::nullopt;
    std::vector<ToolCall> calls;
    for (const nlohmann::ordered_json& item : *list) {
      std::optional<ToolCall> call = CallFromJson(item);
      if (!call) return std::nullopt;
      calls.push_back(std::move(*call));
    }
    return calls;
  }
};

}  // namespace

std::unique_ptr<const ToolCallSyntax> MistralToolCalls() { return std::make_unique<Mistral>(); }

}  // namespace vt::chat
