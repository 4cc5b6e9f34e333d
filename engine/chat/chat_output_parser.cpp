#include "engine/chat/chat_output_parser.h"

#include <cstdint>

namespace vt::chat {

ChatOutputParser::ChatOutputParser(const ChatOutputOptions& options) {
  if (options.reasoning != ReasoningFormat::kNone) reasoning_.emplace(options.reasoning_start);
  if (std::unique_ptr<const ToolCallSyntax> syntax = ToolCallSyntaxFor(options.tools)) {
    tools_.emplace(std::move(syntax), options.max_calls, options.tool_names);
  }
}

void ChatOutputParser::Answer(std::string_view text, bool final, ChatDelta* out) {
  if (!tools_) {
    out->content.append(text);
    return;
  }
  tools_->Feed(text, &out->content, &out->calls);
  if (final) tools_->Finish(&out->content, &out->calls);
}

ChatDelta ChatOutputParser::Feed(std::string_view text) {
  ChatDelta out;
  if (!reasoning_) {
    Answer(text, false, &out);
    return out;
  }
  std::string answer;
  reasoning_->Feed(text, &out.reasoning, &answer);
  Answer(answer, false, &out);
  return out;
}

ChatDelta ChatOutputParser::Finish() {
  ChatDelta out;
  std::string answer;
  if (reasoning_) reasoning_->Finish(&out.reasoning, &answer);
  Answer(answer, true, &out);
  return out;
}

}  // namespace vt::chat
