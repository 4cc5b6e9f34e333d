// A chat completion's output text split into what OpenAI's message carries: reasoning_content,
// content and tool_calls. Reasoning is split off first; tool calls are looked for in the answer
// after it. Fed with each piece of text the engine releases, so a streamed response sends
// exactly the parts a whole one holds.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/chat/reasoning_stream.h"
#include "engine/chat/tool_call.h"
#include "engine/chat/tool_call_stream.h"

namespace vt::chat {

struct ChatDelta {
  std::string reasoning;
  std::string content;
  std::vector<ToolCall> calls;  // each complete

  bool empty() const { return reasoning.empty() && content.empty() && calls.empty(); }
};

struct ChatOutputOptions {
  ReasoningFormat reasoning = ReasoningFormat::kNone;
  ReasoningStart reasoning_start = ReasoningStart::kMaybe;
  ToolCallFormat tools = ToolCallFormat::kNone;  // kNone: no tool calls are parsed
  size_t max_calls = SIZE_MAX;
  std::vector<std::string> tool_names;  // the functions offered; empty: any
};

class ChatOutputParser {
 public:
  explicit ChatOutputParser(const ChatOutputOptions& options);

  ChatDelta Feed(std::string_view text);
  ChatDelta Finish();
  // Tool calls made so far (including any dropped past max_calls).
  size_t calls_made() const { return tools_ ? tools_->calls_made() : 0; }

 private:
  void Answer(std::string_view text, bool final, ChatDelta* out);

  std::optional<ReasoningStream> reasoning_;
  std::optional<ToolCallStream> tools_;
};

}  // namespace vt::chat
