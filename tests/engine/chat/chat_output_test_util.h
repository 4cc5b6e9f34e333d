// Runs a ChatOutputParser over text cut into pieces of `piece` bytes (0: one piece), as the
// engine releases it token by token, and joins what comes out.
#pragma once

#include <string>
#include <string_view>

#include "engine/chat/chat_output_parser.h"

namespace vt::chat::testing {

inline ChatDelta ParseInPieces(const ChatOutputOptions& options, std::string_view text, size_t piece = 0) {
  ChatOutputParser parser(options);
  ChatDelta all;
  auto add = [&](ChatDelta d) {
    all.reasoning += d.reasoning;
    all.content += d.content;
    for (ToolCall& c : d.calls) all.calls.push_back(std::move(c));
  };
  if (piece == 0) piece = text.size() + 1;
  for (size_t i = 0; i < text.size(); i += piece) add(parser.Feed(text.substr(i, piece)));
  add(parser.Finish());
  return all;
}

inline ChatOutputOptions Tools(ToolCallFormat format) {
  ChatOutputOptions o;
  o.tools = format;
  return o;
}

}  // namespace vt::chat::testing
