// Structured-output fields of request bodies: each source compiles into the request's grammar
// (through the model's cache, compiled once per distinct source), bad schemas, regexes and grammars
// and the fields vt cannot honour are 400s naming the field.
#include "engine/server/structured_output.h"

#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "engine/grammar/grammar_matcher.h"
#include "engine/server/completion_request.h"
#include "tests/engine/server/embedded_model_context.h"

namespace vt::server {
namespace {

using nlohmann::json;
using testing::TextModel;

std::variant<CompletionRequest, ApiError> Parse(const std::string& extra, const ModelContext& model) {
  return ParseCompletionRequest(R"({"prompt": "Hi", "max_tokens": 8)" + extra + "}", false, model);
}

std::string ErrorParam(const std::string& extra, const ModelContext& model) {
  auto r = Parse(extra, model);
  if (auto* e = std::get_if<ApiError>(&r)) return e->param + ": " + e->message;
  return "<accepted>";
}

std::shared_ptr<const grammar::GrammarConstraint> GrammarOf(const std::string& extra, const ModelContext& model) {
  auto r = Parse(extra, model);
  if (auto* e = std::get_if<ApiError>(&r)) {
    ADD_FAILURE() << extra << ": " << e->message;
    return nullptr;
  }
  return std::get<CompletionRequest>(r).params.grammar;
}

bool Accepts(const std::shared_ptr<const grammar::GrammarConstraint>& c, const std::string& text) {
  grammar::GrammarMatcher m(c->grammar);
  return m.Accept(text) && m.CanEnd();
}

const char* kSchema = R"({"type": "object", "properties": {"name": {"type": "string"}, "n": {"type": "integer"}},
                          "required": ["name", "n"]})";

TEST(StructuredOutput, JsonSchemaBecomesTheRequestsGrammar) {
  const ModelContext model = TextModel();
  const auto c = GrammarOf(std::string(R"(, "response_format": {"type": "json_schema", "json_schema": {"name": "x",
      "strict": true, "schema": )") + kSchema + "}}", model);
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(Accepts(c, R"({"n":1,"name":"a"})"));
  EXPECT_FALSE(Accepts(c, R"({"name":"a"})"));
  EXPECT_EQ(c->vocabulary->size(), model.tokenizer->vocab_size());
}

TEST(StructuredOutput, EachSourceCompilesItsGrammar) {
  const ModelContext model = TextModel();
  const auto object = GrammarOf(R"(, "response_format": {"type": "json_object"})", model);
  ASSERT_NE(object, nullptr);
  EXPECT_TRUE(Accepts(object, R"({"a": [1, {"b": null}]})"));
  EXPECT_FALSE(Accepts(object, "[1]"));
  const auto guided = GrammarOf(std::string(R"(, "guided_json": )") + json(json::parse(kSchema).dump()).dump(), model);
  ASSERT_NE(guided, nullptr);
  EXPECT_TRUE(Accepts(guided, R"({"n":1,"name":"a"})"));
  // guided_choice is one of the strings verbatim, as vLLM has it: no JSON quotes.
  const auto choice = GrammarOf(R"(, "guided_choice": ["yes", "no", "maybe not"])", model);
  ASSERT_NE(choice, nullptr);
  EXPECT_TRUE(Accepts(choice, "maybe not"));
  EXPECT_FALSE(Accepts(choice, "\"yes\""));
  EXPECT_FALSE(Accepts(choice, "maybe"));
  const auto so = GrammarOf(R"(, "structured_outputs": {"choice": ["a", "b"]})", model);
  ASSERT_NE(so, nullptr);
  EXPECT_TRUE(Accepts(so, "b"));
  EXPECT_EQ(GrammarOf(R"(, "response_format": {"type": "text"}, "tool_choice": "auto")", model), nullptr);
  // guided_regex and structured_outputs.regex: the whole output matches.
  const auto regex = GrammarOf(R"(, "guided_regex": "\\d{3}-(ab|c)+")", model);
  ASSERT_NE(regex, nullptr);
  EXPECT_TRUE(Accepts(regex, "123-abcab"));
  EXPECT_FALSE(Accepts(regex, "123-abcab "));
  EXPECT_FALSE(Accepts(regex, "12-c"));
  const auto so_regex = GrammarOf(R"(, "structured_outputs": {"regex": "(yes|no)\\."})", model);
  ASSERT_NE(so_regex, nullptr);
  EXPECT_TRUE(Accepts(so_regex, "no."));
  EXPECT_FALSE(Accepts(so_regex, "no"));
}

TEST(StructuredOutput, BadRegexesAreRefusedNamingTheFieldAndTheProblem) {
  const ModelContext model = TextModel();
  const std::string lookahead = ErrorParam(R"x(, "guided_regex": "a(?=b)")x", model);
  EXPECT_EQ(lookahead.rfind("guided_regex: ", 0), 0u) << lookahead;
  EXPECT_NE(lookahead.find("lookahead '(?=' at offset 1"), std::string::npos) << lookahead;
  const std::string backref = ErrorParam(R"(, "structured_outputs": {"regex": "(a)\\1"})", model);
  EXPECT_EQ(backref.rfind("structured_outputs: ", 0), 0u) << backref;
  EXPECT_NE(backref.find("backreference"), std::string::npos) << backref;
  EXPECT_EQ(ErrorParam(R"(, "guided_regex": 5)", model).rfind("guided_regex: ", 0), 0u);
  EXPECT_EQ(ErrorParam(R"(, "guided_regex": "a{1001}")", model).rfind("guided_regex: ", 0), 0u);
  // Past both the deterministic bound and the nondeterministic fallback's.
  EXPECT_EQ(ErrorParam(R"(, "guided_regex": "(a|b)*a(a|b){20}(c*){200}d")", model).rfind("guided_regex: ", 0), 0u);
  const std::string both = ErrorParam(R"(, "guided_regex": "a", "guided_choice": ["a"])", model);
  EXPECT_NE(both.find("cannot be combined"), std::string::npos) << both;
}

TEST(StructuredOutput, TheSameSchemaCompilesOnce) {
  const ModelContext model = TextModel();
  const auto a = GrammarOf(std::string(R"(, "guided_json": )") + kSchema, model);
  // The same schema with its keys in another order is the same source.
  const auto b = GrammarOf(R"(, "response_format": {"type": "json_schema", "json_schema": {"name": "x", "schema":
      {"required": ["name", "n"], "properties": {"n": {"type": "integer"}, "name": {"type": "string"}}, "type": "object"}}})",
                           model);
  EXPECT_EQ(a, b);
  EXPECT_EQ(model.grammars->compiles(), 1);
}

TEST(StructuredOutput, TheCacheIsBounded) {
  const ModelContext model = TextModel(2);
  for (const char* c : {"[\"a\"]", "[\"b\"]", "[\"c\"]", "[\"a\"]"}) {
    ASSERT_NE(GrammarOf(std::string(R"(, "guided_choice": )") + c, model), nullptr);
  }
  EXPECT_EQ(model.grammars->size(), 2u);
  EXPECT_EQ(model.grammars->compiles(), 4);  // "a" was evicted by "c" and compiled again
}

TEST(StructuredOutput, BadSchemasAreRefusedWithTheCompilersMessage) {
  const ModelContext model = TextModel();
  const std::string error = ErrorParam(
      R"(, "response_format": {"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "string", "format": "email"}}})",
      model);
  EXPECT_EQ(error.rfind("response_format: ", 0), 0u) << error;
  EXPECT_NE(error.find("format"), std::string::npos) << error;
  for (const char* bad : {R"("json")", R"({"type": "yaml"})", R"({"type": "json_schema"})",
                          R"({"type": "json_schema", "json_schema": {"name": "x"}})",
                          R"({"type": "json_schema", "json_schema": {"name": 1, "schema": {}}})"}) {
    EXPECT_EQ(ErrorParam(std::string(R"(, "response_format": )") + bad, model).rfind("response_format: ", 0), 0u) << bad;
  }
  EXPECT_EQ(ErrorParam(R"(, "guided_json": "{not json")", model).rfind("guided_json: ", 0), 0u);
  EXPECT_EQ(ErrorParam(R"(, "guided_json": {"type": "integer", "multipleOf": 3})", model).rfind("guided_json: ", 0), 0u);
  EXPECT_EQ(ErrorParam(R"(, "guided_choice": [])", model).rfind("guided_choice: ", 0), 0u);
  EXPECT_EQ(ErrorParam(R"(, "guided_choice": ["a", 1])", model).rfind("guided_choice: ", 0), 0u);
  EXPECT_EQ(ErrorParam(R"(, "guided_choice": [""])", model).rfind("guided_choice: ", 0), 0u);
}

// guided_grammar and structured_outputs.grammar: GBNF, the whole output a sentence of `root`.
TEST(StructuredOutput, GbnfGrammarsBecomeTheRequestsGrammar) {
  const ModelContext model = TextModel();
  const auto guided = GrammarOf(R"(, "guided_grammar": "root ::= list\nlist ::= \"[\" (item (\",\" item)*)? \"]\"\nitem ::= [0-9]+ | list")",
                                model);
  ASSERT_NE(guided, nullptr);
  EXPECT_TRUE(Accepts(guided, "[1,[22,[]],3]"));
  EXPECT_FALSE(Accepts(guided, "[1,[2]"));
  EXPECT_EQ(guided->vocabulary->size(), model.tokenizer->vocab_size());
  const auto so = GrammarOf(R"(, "structured_outputs": {"grammar": "root ::= (\"yes\" | \"no\") \".\"{1,3}"})", model);
  ASSERT_NE(so, nullptr);
  EXPECT_TRUE(Accepts(so, "no..."));
  EXPECT_FALSE(Accepts(so, "no...."));
  // The same text compiles once.
  EXPECT_EQ(GrammarOf(R"(, "guided_grammar": "root ::= (\"yes\" | \"no\") \".\"{1,3}")", model), so);
  EXPECT_EQ(model.grammars->compiles(), 2);
}

TEST(StructuredOutput, BadGrammarsAreRefusedNamingTheFieldAndTheProblem) {
  const ModelContext model = TextModel();
  const std::string undefined = ErrorParam(R"(, "guided_grammar": "root ::= \"a\"\n  | item")", model);
  EXPECT_EQ(undefined.rfind("guided_grammar: ", 0), 0u) << undefined;
  EXPECT_NE(undefined.find("undefined rule 'item' at 2:5"), std::string::npos) << undefined;
  const std::string left = ErrorParam(R"(, "structured_outputs": {"grammar": "root ::= root \"a\" | \"b\""})", model);
  EXPECT_EQ(left.rfind("structured_outputs: ", 0), 0u) << left;
  EXPECT_NE(left.find("left recursion"), std::string::npos) << left;
  EXPECT_EQ(ErrorParam(R"(, "guided_grammar": "item ::= \"a\"")", model).rfind("guided_grammar: ", 0), 0u);
  EXPECT_EQ(ErrorParam(R"(, "guided_grammar": {"root": "a"})", model).rfind("guided_grammar: ", 0), 0u);
  const std::string both = ErrorParam(R"(, "guided_grammar": "root ::= \"a\"", "guided_regex": "a")", model);
  EXPECT_NE(both.find("cannot be combined"), std::string::npos) << both;
  const std::string inside = ErrorParam(R"(, "structured_outputs": {"grammar": "root ::= \"a\"", "regex": "a"})", model);
  EXPECT_NE(inside.find("cannot be combined"), std::string::npos) << inside;
}

TEST(StructuredOutput, FieldsVtCannotHonourAreRefusedByName) {
  const ModelContext model = TextModel();
  EXPECT_EQ(ErrorParam(R"(, "structured_outputs": {"structural_tag": "x"})", model).rfind("structured_outputs: ", 0), 0u);
  EXPECT_EQ(ErrorParam(R"(, "tool_choice": "required")", model).rfind("tool_choice: ", 0), 0u);
  EXPECT_EQ(ErrorParam(R"(, "tool_choice": {"type": "function", "function": {"name": "f"}})", model).rfind("tool_choice: ", 0),
            0u);
  const std::string both = ErrorParam(R"(, "guided_choice": ["a"], "response_format": {"type": "json_object"})", model);
  EXPECT_NE(both.find("cannot be combined"), std::string::npos) << both;
  EXPECT_EQ(ErrorParam(R"(, "ignore_eos": true, "response_format": {"type": "json_object"})", model)
                .rfind("ignore_eos: ", 0),
            0u);
}

TEST(StructuredOutput, AModelWithoutATokenizerRefusesConstraintsButNotText) {
  ModelContext model;
  model.served_name = "m";
  model.max_model_len = 64;
  auto r = ParseCompletionRequest(R"({"prompt": [1], "response_format": {"type": "json_object"}})", false, model);
  ASSERT_TRUE(std::holds_alternative<ApiError>(r));
  EXPECT_EQ(std::get<ApiError>(r).param, "response_format");
  r = ParseCompletionRequest(R"({"prompt": [1], "response_format": {"type": "text"}})", false, model);
  EXPECT_TRUE(std::holds_alternative<CompletionRequest>(r));
}

}  // namespace
}  // namespace vt::server
