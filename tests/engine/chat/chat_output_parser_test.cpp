// Reasoning and tool calls together, as a Qwen3 model writes them: the calls are looked for in
// the answer after the reasoning only, so a call the model drafts while thinking is reasoning.
#include <gtest/gtest.h>

#include <string>

#include "engine/chat/chat_output_parser.h"
#include "tests/engine/chat/chat_output_test_util.h"

namespace vt::chat {
namespace {

using testing::ParseInPieces;

TEST(ChatOutputParser, ReasoningThenToolCalls) {
  ChatOutputOptions o;
  o.reasoning = ReasoningFormat::kQwen3;
  o.tools = ToolCallFormat::kHermes;
  const std::string text =
      "<think>\nI could write <tool_call>{\"name\": \"draft\", \"arguments\": {}}</tool_call> "
      "here.\n</think>\n\n"
      "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Rome\"}}\n</tool_call>";
  for (size_t piece = 0; piece <= 9; ++piece) {
    const ChatDelta d = ParseInPieces(o, text, piece);
    EXPECT_EQ(d.reasoning,
              "I could write <tool_call>{\"name\": \"draft\", \"arguments\": {}}</tool_call> here.\n");
    EXPECT_EQ(d.content, "");
    ASSERT_EQ(d.calls.size(), 1u) << piece;
    EXPECT_EQ(d.calls[0].name, "get_weather");
    EXPECT_EQ(d.calls[0].arguments, R"({"city":"Rome"})");
  }
}

TEST(ChatOutputParser, CallsMadeCountsDroppedCalls) {
  ChatOutputOptions o;
  o.tools = ToolCallFormat::kHermes;
  o.max_calls = 1;
  ChatOutputParser p(o);
  ChatDelta d = p.Feed(
      "<tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call>\n<tool_call>{\"name\": \"b\", "
      "\"arguments\": {}}</tool_call>");
  ChatDelta end = p.Finish();
  EXPECT_EQ(d.calls.size() + end.calls.size(), 1u);
  EXPECT_EQ(p.calls_made(), 2u);
}

}  // namespace
}  // namespace vt::chat
