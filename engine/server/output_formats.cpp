#include "engine/server/output_formats.h"

namespace vt::server {

Status ResolveOutputFormats(const std::string& tool_call_parser, const std::string& reasoning_parser,
                            ModelContext* model) {
  const std::string source = model->chat_template ? model->chat_template->source() : std::string();
  if (tool_call_parser.empty() || tool_call_parser == "auto") {
    model->tool_call_format = chat::DetectToolCallFormat(source);
  } else {
    Result<chat::ToolCallFormat> f = chat::ToolCallFormatNamed(tool_call_parser);
    if (!f.ok()) return f.status();
    model->tool_call_format = *f;
  }
  if (reasoning_parser.empty() || reasoning_parser == "auto") {
    model->reasoning_format = chat::DetectReasoningFormat(source);
  } else {
    Result<chat::ReasoningFormat> f = chat::ReasoningFormatNamed(reasoning_parser);
    if (!f.ok()) return f.status();
    model->reasoning_format = *f;
  }
  return Status::Ok();
}

}  // namespace vt::server
