// Qwen2.5 / Qwen3 / Hermes tool calls: each call is one JSON object between <tool_call> and
// </tool_call>, anywhere in the answer, as many as the model makes:
//   <tool_call>
//   {"name": "get_weather", "arguments": {"city": "Paris"}}
//   </tool_call>
#include <string_view>

#include "engine/chat/tool_call.h"
#include "engine/chat/tool_call_json.h"

namespace vt::chat {
namespace {

constexpr std::string_view kOpen = "<tool_call>";
constexpr std::string_view kClose = "</tool_call>";

class Hermes final : public ToolCallSyntax {
 public:
  RegionStart FindStart(std::string_view text, bool) const override { return FindMarker(text, kOpen); }

  size_t RegionLength(std::string_view region) const override {
    const size_t close = region.find(kClose, kOpen.size());
    return close == std::string_view::npos ? close : close + kClose.size();
  }

  std::optional<std::vector<ToolCall>> ParseRegion(std::string_view region) const override {
    std::string_view body = region.substr(kOpen.size());
    // An output that ended right after the object (EOS in place of the closing tag) still holds a
    // whole call; anything else unclosed is not one.
    if (body.size() >= kClose.size() && body.substr(body.size() - kClose.size()) == kClose) {
      body.remove_suffix(kClose.size());
    }
    std::optional<nlohmann::ordered_json> call = ParseJson(body);
    if (!call) return std::nullopt;
    std::optional<ToolCall> parsed = CallFromJson(*call);
    if (!parsed) return std::nullopt;
    return std::vector<ToolCall>{std::move(*parsed)};
  }
};

}  // namespace

std::unique_ptr<const ToolCallSyntax> HermesToolCalls() { return std::make_unique<Hermes>(); }

}  // namespace vt::chat
