// Which tool-call format a model uses: named by --tool-call-parser, or recognised from the markers
// its chat template teaches the model to write.
#include <string>

#include "engine/chat/tool_call.h"

namespace vt::chat {

Result<ToolCallFormat> ToolCallFormatNamed(std::string_view name) {
  if (name == "none") return ToolCallFormat::kNone;
  if (name == "hermes") return ToolCallFormat::kHermes;
  if (name == "llama3_json") return ToolCallFormat::kLlama3Json;
  if (name == "mistral") return ToolCallFormat::kMistral;
  return InvalidArgument("unknown tool-call parser '" + std::string(name) +
                         "' (hermes, llama3_json, mistral, none)");
}

std::string_view ToolCallFormatName(ToolCallFormat format) {
  switch (format) {
    case ToolCallFormat::kHermes:
      return "hermes";
    case ToolCallFormat::kLlama3Json:
      return "llama3_json";
    case ToolCallFormat::kMistral:
      return "mistral";
    case ToolCallFormat::kNone:
      break;
  }
  return "none";
}

ToolCallFormat DetectToolCallFormat(std::string_view source) {
  auto has = [&](std::string_view s) { return source.find(s) != std::string_view::npos; };
  if (has("<tool_call>")) return ToolCallFormat::kHermes;
  if (has("[TOOL_CALLS]")) return ToolCallFormat::kMistral;
  // Llama 3.1's template asks for {"name": ..., "parameters": ...} and knows <|python_tag|>.
  if (has("<|python_tag|>") || (has("<|start_header_id|>") && has("\"parameters\"") && has("tools"))) {
    return ToolCallFormat::kLlama3Json;
  }
  return ToolCallFormat::kNone;
}

std::unique_ptr<const ToolCallSyntax> ToolCallSyntaxFor(ToolCallFormat format) {
  switch (format) {
    case ToolCallFormat::kHermes:
      return HermesToolCalls();
    case ToolCallFormat::kLlama3Json:
      return Llama3JsonToolCalls();
    case ToolCallFormat::kMistral:
      return MistralToolCalls();
    case ToolCallFormat::kNone:
      break;
  }
  return nullptr;
}

}  // namespace vt::chat
