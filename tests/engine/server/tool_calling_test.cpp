// Tools in chat requests: tool_choice, tools and parallel_tool_calls checked and refused by name;
// "required" and a named function enforced by a grammar in the model's tool-call format whose
// arguments validate against the function's schema (exactly one call when parallel calls are
// off); the grammar applies after a reasoning block; assistant tool calls and tool results go
// through the template.
#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "engine/grammar/grammar_matcher.h"
#include "engine/server/chat_prompt.h"
#include "engine/server/completion_request.h"
#include "engine/server/output_formats.h"
#include "engine/server/reasoning_grammar.h"
#include "engine/server/tool_call_grammar.h"
#include "tests/engine/server/embedded_model_context.h"

namespace vt::server {
namespace {

using nlohmann::json;
using testing::ChatModel;

const char* kTools = R"([
  {"type": "function", "function": {"name": "get_weather", "description": "Weather of a city",
   "parameters": {"type": "object", "properties": {"city": {"type": "string", "maxLength": 12},
                  "unit": {"enum": ["c", "f"]}}, "required": ["city", "unit"], "additionalProperties": false}}},
  {"type": "function", "function": {"name": "now"}}])";

ModelContext HermesModel() {
  ModelContext m = ChatModel();
  EXPECT_TRUE(ResolveOutputFormats("hermes", "none", &m).ok());
  return m;
}

std::variant<CompletionRequest, ApiError> Chat(const std::string& extra, const ModelContext& model) {
  return ParseCompletionRequest(
      R"({"messages": [{"role": "user", "content": "Weather in Paris?"}], "max_tokens": 64)" + extra + "}",
      true, model);
}

std::string Error(const std::string& extra, const ModelContext& model) {
  auto r = Chat(extra, model);
  if (auto* e = std::get_if<ApiError>(&r)) return e->param + ": " + e->message;
  return "<accepted>";
}

CompletionRequest Accepted(const std::string& extra, const ModelContext& model) {
  auto r = Chat(extra, model);
  if (auto* e = std::get_if<ApiError>(&r)) ADD_FAILURE() << extra << ": " << e->message;
  return std::holds_alternative<CompletionRequest>(r) ? std::get<CompletionRequest>(r) : CompletionRequest();
}

bool Accepts(const grammar::Grammar& g, const std::string& text) {
  grammar::GrammarMatcher m(std::make_shared<const grammar::Grammar>(g));
  return m.Accept(text) && m.CanEnd();
}

bool Accepts(const CompletionRequest& r, const std::string& text) {
  if (!r.params.grammar) {
    ADD_FAILURE() << "no grammar";
    return false;
  }
  return Accepts(*r.params.grammar->grammar, text);
}

const std::string kParis =
    "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"unit\": "
    "\"c\"}}\n</tool_call>";
const std::string kNow = "<tool_call>\n{\"name\": \"now\", \"arguments\": {}}\n</tool_call>";

TEST(ToolCalling, RequiredIsAGrammarOverEveryToolInTheModelsFormat) {
  const ModelContext model = HermesModel();
  const CompletionRequest r =
      Accepted(std::string(R"(, "tools": )") + kTools + R"(, "tool_choice": "required")", model);
  EXPECT_TRUE(r.parse_output);
  EXPECT_EQ(r.output.tools, chat::ToolCallFormat::kHermes);
  EXPECT_TRUE(Accepts(r, kParis));
  EXPECT_TRUE(Accepts(r, kNow));
  EXPECT_TRUE(Accepts(r, kParis + "\n" + kNow));  // parallel calls are on by default
  // Arguments outside the schema, unknown functions, free text and no call at all are not.
  EXPECT_FALSE(Accepts(
      r, "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>"));
  EXPECT_FALSE(Accepts(r,
                       "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", "
                       "\"unit\": \"k\"}}\n</tool_call>"));
  EXPECT_FALSE(Accepts(r,
                       "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": "
                       "\"Parisssssssssss\", \"unit\": \"c\"}}\n</tool_call>"));
  EXPECT_FALSE(Accepts(r, "<tool_call>\n{\"name\": \"rm\", \"arguments\": {}}\n</tool_call>"));
  EXPECT_FALSE(Accepts(r, "Sunny."));
  EXPECT_FALSE(Accepts(r, ""));
}

TEST(ToolCalling, ANamedFunctionIsTheOnlyOneAndParallelOffIsExactlyOneCall) {
  const ModelContext model = HermesModel();
  const CompletionRequest named =
      Accepted(std::string(R"(, "tools": )") + kTools +
                   R"(, "tool_choice": {"type": "function", "function": {"name": "now"}})",
               model);
  EXPECT_TRUE(Accepts(named, kNow));
  EXPECT_TRUE(Accepts(named, kNow + "\n" + kNow));
  EXPECT_FALSE(Accepts(named, kParis));
  // A function declared without parameters takes none.
  EXPECT_FALSE(Accepts(named, "<tool_call>\n{\"name\": \"now\", \"arguments\": {\"x\": 1}}\n</tool_call>"));
  const CompletionRequest one = Accepted(
      std::string(R"(, "tools": )") + kTools + R"(, "tool_choice": "required", "parallel_tool_calls": false)",
      model);
  EXPECT_EQ(one.output.max_calls, 1u);
  EXPECT_TRUE(Accepts(one, kParis));
  EXPECT_FALSE(Accepts(one, kParis + "\n" + kNow));
}

TEST(ToolCalling, AutoParsesWithoutAGrammarAndNoneDoesNeither) {
  const ModelContext model = HermesModel();
  const CompletionRequest automatic = Accepted(std::string(R"(, "tools": )") + kTools, model);
  EXPECT_EQ(automatic.params.grammar, nullptr);
  EXPECT_EQ(automatic.output.tools, chat::ToolCallFormat::kHermes);
  EXPECT_TRUE(automatic.parse_output);
  const CompletionRequest none =
      Accepted(std::string(R"(, "tools": )") + kTools + R"(, "tool_choice": "none")", model);
  EXPECT_EQ(none.params.grammar, nullptr);
  EXPECT_FALSE(none.parse_output);
}

TEST(ToolCalling, TheOtherFormatsGrammars) {
  const std::vector<ToolFunction> fns = {
      {"f", json{{"type", "object"}, {"properties", {{"a", {{"type", "integer"}}}}}, {"required", {"a"}}}}};
  Result<grammar::Grammar> llama = ToolCallGrammar(chat::ToolCallFormat::kLlama3Json, fns, true);
  ASSERT_TRUE(llama.ok());
  EXPECT_TRUE(
      Accepts(*llama, R"({"name": "f", "parameters": {"a": 1}}; {"name": "f", "parameters": {"a": 2}})"));
  EXPECT_FALSE(Accepts(*llama, R"({"name": "f", "parameters": {}})"));
  Result<grammar::Grammar> mistral = ToolCallGrammar(chat::ToolCallFormat::kMistral, fns, false);
  ASSERT_TRUE(mistral.ok());
  EXPECT_TRUE(Accepts(*mistral, R"([{"name": "f", "arguments": {"a": 1}}])"));
  EXPECT_FALSE(
      Accepts(*mistral, R"([{"name": "f", "arguments": {"a": 1}}, {"name": "f", "arguments": {"a": 1}}])"));
}

TEST(ToolCalling, RefusedByName) {
  const ModelContext model = HermesModel();
  const std::string tools = std::string(R"(, "tools": )") + kTools;
  const std::string unknown =
      Error(tools + R"(, "tool_choice": {"type": "function", "function": {"name": "fly"}})", model);
  EXPECT_EQ(unknown.rfind("tool_choice: ", 0), 0u) << unknown;
  EXPECT_NE(unknown.find("'fly'"), std::string::npos) << unknown;
  EXPECT_EQ(Error(R"(, "tool_choice": "required")", model).rfind("tool_choice: ", 0), 0u);
  EXPECT_EQ(Error(tools + R"(, "tool_choice": "sometimes")", model).rfind("tool_choice: ", 0), 0u);
  EXPECT_EQ(Error(tools + R"(, "parallel_tool_calls": "yes")", model).rfind("parallel_tool_calls: ", 0), 0u);
  EXPECT_EQ(
      Error(R"(, "tools": [{"type": "function", "function": {"name": "a b"}}])", model).rfind("tools: ", 0),
      0u);
  EXPECT_EQ(Error(R"(, "tools": [{"type": "retrieval"}])", model).rfind("tools: ", 0), 0u);
  EXPECT_EQ(
      Error(
          R"(, "tools": [{"type": "function", "function": {"name": "a"}}, {"type": "function", "function": {"name": "a"}}])",
          model)
          .rfind("tools: ", 0),
      0u);
  // A schema the grammar engine cannot compile is refused, naming the function.
  const std::string pattern = Error(
      R"(, "tools": [{"type": "function", "function": {"name": "p", "parameters": {"type": "object", "properties": {"x": {"type": "string", "format": "email"}}}}}], "tool_choice": "required")",
      model);
  EXPECT_EQ(pattern.rfind("tools: ", 0), 0u) << pattern;
  EXPECT_NE(pattern.find("'p'"), std::string::npos) << pattern;
  // One constraint per request.
  EXPECT_EQ(Error(tools + R"(, "tool_choice": "required", "response_format": {"type": "json_object"})", model)
                .rfind("tool_choice: ", 0),
            0u);
  // A model whose template has no tool-call format cannot read calls: tools are refused, not ignored.
  const ModelContext plain = ChatModel();
  EXPECT_EQ(Error(tools, plain).rfind("tools: ", 0), 0u);
  EXPECT_EQ(Error(tools + R"(, "tool_choice": "none")", plain), "<accepted>");
}

TEST(ToolCalling, TheGrammarAppliesAfterTheReasoning) {
  const std::vector<ToolFunction> fns = {{"now", json{{"type", "object"}}}};
  Result<grammar::Grammar> calls = ToolCallGrammar(chat::ToolCallFormat::kHermes, fns, false);
  ASSERT_TRUE(calls.ok());
  const std::string call = "<tool_call>\n{\"name\": \"now\", \"arguments\": {}}\n</tool_call>";
  const grammar::Grammar maybe = AfterReasoning(*calls, chat::ReasoningStart::kMaybe);
  EXPECT_TRUE(Accepts(maybe, call));
  EXPECT_TRUE(Accepts(maybe, "<think>\nFree text, even <tool_call> or </thin k>.\n</think>\n\n" + call));
  EXPECT_FALSE(Accepts(maybe, "<think>x</think>\n\nfree text"));
  EXPECT_FALSE(Accepts(maybe, "<think>a</think>b</think>" + call));
  const grammar::Grammar inside = AfterReasoning(*calls, chat::ReasoningStart::kInside);
  EXPECT_TRUE(Accepts(inside, "thinking</think>" + call));
  EXPECT_FALSE(Accepts(inside, call));
  EXPECT_TRUE(Accepts(AfterReasoning(*calls, chat::ReasoningStart::kAnswer), call));

  // Through a request: a Qwen3-like template that reasons; enable_thinking false closes the block.
  ModelContext model = ChatModel(
      "{% if tools %}Call tools in <tool_call></tool_call>.{% endif %}"
      "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor "
      "%}<|im_start|>assistant\n"
      "{% if enable_thinking is defined and enable_thinking is false %}<think>\n\n</think>\n\n{% endif %}");
  ASSERT_TRUE(ResolveOutputFormats("auto", "auto", &model).ok());
  ASSERT_EQ(model.tool_call_format, chat::ToolCallFormat::kHermes);
  ASSERT_EQ(model.reasoning_format, chat::ReasoningFormat::kQwen3);
  const std::string tools =
      R"(, "tools": [{"type": "function", "function": {"name": "now"}}], "tool_choice": "required")";
  const CompletionRequest thinking = Accepted(tools, model);
  EXPECT_TRUE(Accepts(thinking, "<think>hm</think>" + call));
  EXPECT_EQ(thinking.output.reasoning, chat::ReasoningFormat::kQwen3);
  const CompletionRequest direct =
      Accepted(tools + R"(, "chat_template_kwargs": {"enable_thinking": false})", model);
  EXPECT_EQ(direct.output.reasoning_start, chat::ReasoningStart::kAnswer);
  EXPECT_FALSE(Accepts(direct, "<think>hm</think>" + call));
  EXPECT_TRUE(Accepts(direct, call));
}

TEST(ToolCalling, ToolCallsAndResultsGoThroughTheTemplate) {
  ModelContext model = ChatModel(
      "{% for t in tools %}{{ t | tojson }}{% endfor %}"
      "{% for m in messages %}[{{ m.role }}]{% if m.tool_calls %}{% for c in m.tool_calls %}"
      "{{ c.function.name }}{{ c.function.arguments | tojson }}{% endfor %}{% endif %}"
      "{% if m.role == 'tool' %}{{ m.tool_call_id }}={% endif %}{{ m.content }}{% endfor %}");
  // Arguments come as a JSON string; their keys keep the client's order, as do the tools'.
  const std::string body = R"({"messages": [
      {"role": "user", "content": "Weather?"},
      {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
        "function": {"name": "get_weather", "arguments": "{\"days\": 2, \"city\": \"Paris\"}"}}]},
      {"role": "tool", "tool_call_id": "call_1", "content": "sunny"}], "add_generation_prompt": false,
      "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]})";
  std::variant<std::string, ApiError> text = RenderChatPrompt(body, model);
  ASSERT_TRUE(std::holds_alternative<std::string>(text)) << std::get<ApiError>(text).message;
  EXPECT_EQ(std::get<std::string>(text),
            R"({"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}})"
            R"([user]Weather?[assistant]get_weather{"days": 2, "city": "Paris"}[tool]call_1=sunny)");
  const std::string bad = R"({"messages": [{"role": "assistant", "content": null, "tool_calls": [{"id": "c",
      "type": "function", "function": {"name": "f", "arguments": "{not json"}}]}]})";
  text = RenderChatPrompt(bad, model);
  ASSERT_TRUE(std::holds_alternative<ApiError>(text));
  EXPECT_EQ(std::get<ApiError>(text).param, "messages");
}

}  // namespace
}  // namespace vt::server
