// ToolCallStream over each format's syntax (hermes, llama3_json, mistral): whole outputs, the same outputs
// streamed in pieces of every size (the parts must not depend on where the text was cut), text around
// calls, several calls, malformed calls (plain content, never an error), and format detection.
#include <gtest/gtest.h>

#include <string>

#include "engine/chat/tool_call.h"
#include "tests/engine/chat/chat_output_test_util.h"

namespace vt::chat {
namespace {

using testing::ParseInPieces;
using testing::Tools;

struct Expected {
  std::string content;
  std::vector<std::pair<std::string, std::string>> calls;  // name, arguments
};

// The output parsed whole and in pieces of 1..n bytes gives the same parts, and the expected ones.
void ExpectParts(ToolCallFormat format, const std::string& text, const Expected& want,
                 size_t max_calls = SIZE_MAX) {
  ChatOutputOptions options = Tools(format);
  options.max_calls = max_calls;
  for (size_t piece = 0; piece <= std::min<size_t>(text.size(), 16); ++piece) {
    const ChatDelta got = ParseInPieces(options, text, piece);
    EXPECT_EQ(got.content, want.content) << "piece " << piece << ": " << text;
    EXPECT_EQ(got.reasoning, "");
    ASSERT_EQ(got.calls.size(), want.calls.size()) << "piece " << piece << ": " << text;
    for (size_t i = 0; i < want.calls.size(); ++i) {
      EXPECT_EQ(got.calls[i].name, want.calls[i].first) << "piece " << piece;
      EXPECT_EQ(got.calls[i].arguments, want.calls[i].second) << "piece " << piece;
    }
  }
}

TEST(HermesToolCalls, OneCall) {
  ExpectParts(ToolCallFormat::kHermes,
              "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": "
              "3}}\n</tool_call>",
              {"", {{"get_weather", R"({"city":"Paris","days":3})"}}});
}

TEST(HermesToolCalls, ArgumentsKeepTheModelsKeyOrder) {
  ExpectParts(ToolCallFormat::kHermes,
              R"(<tool_call>{"name": "f", "arguments": {"z": 1, "a": {"y": 2, "b": 3}}}</tool_call>)",
              {"", {{"f", R"({"z":1,"a":{"y":2,"b":3}})"}}});
}

TEST(HermesToolCalls, SeveralCallsAndTextAroundThem) {
  ExpectParts(ToolCallFormat::kHermes,
              "Let me check.\n\n<tool_call>\n{\"name\": \"a\", \"arguments\": {}}\n</tool_call>\n"
              "<tool_call>\n{\"name\": \"b\", \"arguments\": {\"x\": \"</tool\"}}\n</tool_call>\nDone.",
              {"Let me check.Done.", {{"a", "{}"}, {"b", R"({"x":"</tool"})"}}});
}

TEST(HermesToolCalls, AnUnclosedCallThatEndsTheOutputIsStillACall) {
  ExpectParts(ToolCallFormat::kHermes, "<tool_call>\n{\"name\": \"a\", \"arguments\": {\"k\": [1, 2]}}\n",
              {"", {{"a", R"({"k":[1,2]})"}}});
}

TEST(HermesToolCalls, MalformedCallsArePlainContent) {
  const std::string bad_json = "<tool_call>\n{\"name\": \"a\", \"arguments\": {\"k\": }\n</tool_call>";
  ExpectParts(ToolCallFormat::kHermes, bad_json, {bad_json, {}});
  const std::string no_name = "<tool_call>{\"arguments\": {}}</tool_call>";
  ExpectParts(ToolCallFormat::kHermes, "ok " + no_name, {"ok" + no_name, {}});
  const std::string cut = "<tool_call>\n{\"name\": \"a\", \"argu";
  ExpectParts(ToolCallFormat::kHermes, cut, {cut, {}});
  // Arguments that are not an object, and nesting past the bound, are not calls either.
  const std::string list_args = "<tool_call>{\"name\": \"a\", \"arguments\": [1]}</tool_call>";
  ExpectParts(ToolCallFormat::kHermes, list_args, {list_args, {}});
  const std::string deep = "<tool_call>{\"name\": \"a\", \"arguments\": {\"k\": " + std::string(100, '[') +
                           std::string(100, ']') + "}}</tool_call>";
  ExpectParts(ToolCallFormat::kHermes, deep, {deep, {}});
}

TEST(ToolCallStream, CallsOfFunctionsNotOfferedAndCallsWithoutArgumentsAreContent) {
  ChatOutputOptions o = Tools(ToolCallFormat::kLlama3Json);
  o.tool_names = {"get_weather"};
  const std::string person = R"({"name": "Bob", "parameters": {"age": 3}})";
  for (size_t piece : {0, 1, 5}) {
    ChatDelta d = ParseInPieces(o, person, piece);
    EXPECT_EQ(d.content, person);
    EXPECT_TRUE(d.calls.empty());
    d = ParseInPieces(o, R"({"name": "get_weather", "parameters": {"city": "Oslo"}})", piece);
    ASSERT_EQ(d.calls.size(), 1u);
    EXPECT_EQ(d.calls[0].name, "get_weather");
  }
  const std::string no_arguments = "<tool_call>{\"name\": \"get_weather\"}</tool_call>";
  ExpectParts(ToolCallFormat::kHermes, no_arguments, {no_arguments, {}});
}

TEST(HermesToolCalls, TextThatOnlyLooksLikeAMarkerIsContent) {
  ExpectParts(ToolCallFormat::kHermes, "a <tool_cal b <tool", {"a <tool_cal b <tool", {}});
  ExpectParts(ToolCallFormat::kHermes, "plain text\n", {"plain text\n", {}});
}

TEST(HermesToolCalls, ArgumentsGivenAsAJsonStringAreAccepted) {
  ExpectParts(ToolCallFormat::kHermes, R"(<tool_call>{"name": "a", "arguments": "{\"k\": 1}"}</tool_call>)",
              {"", {{"a", R"({"k":1})"}}});
}

TEST(HermesToolCalls, ParallelCallsOffKeepsTheFirst) {
  ExpectParts(ToolCallFormat::kHermes,
              "<tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call><tool_call>{\"name\": \"b\", "
              "\"arguments\": {}}</tool_call>",
              {"", {{"a", "{}"}}}, /*max_calls=*/1);
}

TEST(Llama3JsonToolCalls, TheWholeAnswerIsTheCall) {
  ExpectParts(ToolCallFormat::kLlama3Json, R"({"name": "get_weather", "parameters": {"city": "Oslo"}})",
              {"", {{"get_weather", R"({"city":"Oslo"})"}}});
  ExpectParts(ToolCallFormat::kLlama3Json, "<|python_tag|>{\"name\": \"f\", \"parameters\": {}}",
              {"", {{"f", "{}"}}});
  ExpectParts(ToolCallFormat::kLlama3Json, "\n {\"name\": \"f\", \"arguments\": {\"a\": \"x;y\"}}\n",
              {"", {{"f", R"({"a":"x;y"})"}}});
}

TEST(Llama3JsonToolCalls, SeveralCallsSeparatedBySemicolons) {
  ExpectParts(ToolCallFormat::kLlama3Json,
              R"({"name": "a", "parameters": {"s": "1;2"}}; {"name": "b", "parameters": {}})",
              {"", {{"a", R"({"s":"1;2"})"}, {"b", "{}"}}});
}

TEST(Llama3JsonToolCalls, TextFirstOrJsonThatIsNoCallIsContent) {
  ExpectParts(ToolCallFormat::kLlama3Json, R"(Sure: {"name": "a", "parameters": {}})",
              {R"(Sure: {"name": "a", "parameters": {}})", {}});
  ExpectParts(ToolCallFormat::kLlama3Json, R"({"answer": 42})", {R"({"answer": 42})", {}});
  ExpectParts(ToolCallFormat::kLlama3Json, R"({"name": "a", "parameters": {)",
              {R"({"name": "a", "parameters": {)", {}});
  ExpectParts(ToolCallFormat::kLlama3Json, "<|python_", {"<|python_", {}});
}

TEST(MistralToolCalls, MarkerAndList) {
  ExpectParts(ToolCallFormat::kMistral,
              R"([TOOL_CALLS][{"name": "a", "arguments": {"x": 1}}, {"name": "b", "arguments": {}}])",
              {"", {{"a", R"({"x":1})"}, {"b", "{}"}}});
  ExpectParts(ToolCallFormat::kMistral, R"(Checking. [TOOL_CALLS] [{"name": "a", "arguments": {}}])",
              {"Checking.", {{"a", "{}"}}});
}

TEST(MistralToolCalls, TheListWithoutItsSpecialTokenMarker) {
  ExpectParts(ToolCallFormat::kMistral, R"([{"name": "a", "arguments": {"x": [1]}}])",
              {"", {{"a", R"({"x":[1]})"}}});
}

TEST(MistralToolCalls, MalformedIsContent) {
  ExpectParts(ToolCallFormat::kMistral, "[1] is a footnote", {"[1] is a footnote", {}});
  ExpectParts(ToolCallFormat::kMistral, R"([TOOL_CALLS][{"name": 3}])", {R"([TOOL_CALLS][{"name": 3}])", {}});
  ExpectParts(ToolCallFormat::kMistral, "[TOOL_CA", {"[TOOL_CA", {}});
}

TEST(ToolCallFormat, NamesAndDetection) {
  EXPECT_EQ(ToolCallFormatNamed("hermes").value(), ToolCallFormat::kHermes);
  EXPECT_EQ(ToolCallFormatNamed("llama3_json").value(), ToolCallFormat::kLlama3Json);
  EXPECT_EQ(ToolCallFormatNamed("mistral").value(), ToolCallFormat::kMistral);
  EXPECT_EQ(ToolCallFormatNamed("none").value(), ToolCallFormat::kNone);
  EXPECT_FALSE(ToolCallFormatNamed("pythonic").ok());
  EXPECT_EQ(DetectToolCallFormat("{{- '<tool_call>\\n{\"name\": ' }}"), ToolCallFormat::kHermes);
  EXPECT_EQ(DetectToolCallFormat("{{ '[TOOL_CALLS]' + tool_calls | tojson }}"), ToolCallFormat::kMistral);
  EXPECT_EQ(DetectToolCallFormat(
                "{%- if tools %}<|start_header_id|>ipython{{ '{\"name\": ..., \"parameters\": ...}' }}"
                "{% endif %}"),
            ToolCallFormat::kLlama3Json);
  EXPECT_EQ(DetectToolCallFormat("{% for m in messages %}<|im_start|>{{ m.content }}{% endfor %}"),
            ToolCallFormat::kNone);
}

TEST(ToolCallFormat, PlainAnswersPassThroughUntouched) {
  // No format: the parser is content only, whitespace and all.
  ExpectParts(ToolCallFormat::kNone, "  <tool_call>{\"name\": \"a\"}</tool_call>\n",
              {"  <tool_call>{\"name\": \"a\"}</tool_call>\n", {}});
}

}  // namespace
}  // namespace vt::chat
