// Qwen3-style reasoning split: where the output starts (from the prompt), the split whole and
// streamed in pieces of every size, tags cut across pieces, and an unclosed block.
#include "engine/chat/reasoning_stream.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/engine/chat/chat_output_test_util.h"

namespace vt::chat {
namespace {

using testing::ParseInPieces;

void ExpectSplit(ReasoningStart start, const std::string& text, const std::string& reasoning,
                 const std::string& answer) {
  ChatOutputOptions o;
  o.reasoning = ReasoningFormat::kQwen3;
  o.reasoning_start = start;
  for (size_t piece = 0; piece <= std::min<size_t>(text.size(), 12); ++piece) {
    const ChatDelta got = ParseInPieces(o, text, piece);
    EXPECT_EQ(got.reasoning, reasoning) << "piece " << piece << ": " << text;
    EXPECT_EQ(got.content, answer) << "piece " << piece << ": " << text;
  }
}

TEST(ReasoningStream, ThinkBlockThenAnswer) {
  ExpectSplit(ReasoningStart::kMaybe, "<think>\nThe user greets me.\n</think>\n\nHello!",
              "The user greets me.\n", "Hello!");
}

TEST(ReasoningStream, NoBlockIsAllAnswer) {
  ExpectSplit(ReasoningStart::kMaybe, "Hello <think>not at the start</think>", "",
              "Hello <think>not at the start</think>");
  ExpectSplit(ReasoningStart::kMaybe, "<thin", "", "<thin");
  ExpectSplit(ReasoningStart::kMaybe, "", "", "");
}

TEST(ReasoningStream, AnUnclosedBlockIsAllReasoning) {
  ExpectSplit(ReasoningStart::kMaybe, "<think>still thinking </thi", "still thinking </thi", "");
}

TEST(ReasoningStream, ThePromptOpenedTheBlock) {
  ExpectSplit(ReasoningStart::kInside, "\nhmm < / >\n</think>\n\n42", "hmm < / >\n", "42");
}

TEST(ReasoningStream, ThePromptClosedTheBlock) {
  ExpectSplit(ReasoningStart::kAnswer, "\n\nJust the answer </think>", "", "Just the answer </think>");
}

TEST(ReasoningStream, WhereTheOutputStartsComesFromThePrompt) {
  EXPECT_EQ(ReasoningStartOf("<|im_start|>assistant\n"), ReasoningStart::kMaybe);
  EXPECT_EQ(ReasoningStartOf("<|im_start|>assistant\n<think>\n"), ReasoningStart::kInside);
  EXPECT_EQ(ReasoningStartOf("<|im_start|>assistant\n<think>\n\n</think>\n\n"), ReasoningStart::kAnswer);
}

TEST(ReasoningStream, NamesAndDetection) {
  EXPECT_EQ(ReasoningFormatNamed("qwen3").value(), ReasoningFormat::kQwen3);
  EXPECT_EQ(ReasoningFormatNamed("deepseek_r1").value(), ReasoningFormat::kQwen3);
  EXPECT_EQ(ReasoningFormatNamed("none").value(), ReasoningFormat::kNone);
  EXPECT_FALSE(ReasoningFormatNamed("o1").ok());
  EXPECT_EQ(DetectReasoningFormat("{{- '<think>\\n\\n</think>\\n\\n' }}"), ReasoningFormat::kQwen3);
  EXPECT_EQ(DetectReasoningFormat("<|im_start|>assistant\n"), ReasoningFormat::kNone);
}

}  // namespace
}  // namespace vt::chat
