#include "engine/server/tool_call_grammar.h"

#include <nlohmann/json.hpp>

#include "engine/grammar/json_schema_grammar.h"
#include "engine/server/grammar_splice.h"

namespace vt::server {
namespace {

using grammar::Grammar;
using grammar::Literal;
using grammar::Ref;
using grammar::Sequence;

Sequence Cat(Sequence a, const Sequence& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// How a format writes a call and joins several: the text around a call's arguments object, and
// around the list of calls. The special-token markers ([TOOL_CALLS], <|python_tag|>) are left
// out: a grammar can only produce text tokens, and the parsers read calls without them.
struct Syntax {
  std::string call_open;   // before the name
  std::string call_mid;    // between the name and the arguments
  std::string call_close;  // after the arguments
  std::string separator;   // between calls
  std::string list_open, list_close;
};

Syntax SyntaxOf(chat::ToolCallFormat format) {
  switch (format) {
    case chat::ToolCallFormat::kLlama3Json:
      return {"{\"name\": \"", "\", \"parameters\": ", "}", "; ", "", ""};
    case chat::ToolCallFormat::kMistral:
      return {"{\"name\": \"", "\", \"arguments\": ", "}", ", ", "[", "]"};
    case chat::ToolCallFormat::kHermes:
    case chat::ToolCallFormat::kNone:
      break;
  }
  return {"<tool_call>\n{\"name\": \"", "\", \"arguments\": ", "}\n</tool_call>", "\n", "", ""};
}

}  // namespace

std::string ToolCallGrammarKey(chat::ToolCallFormat format, const std::vector<ToolFunction>& functions,
                               bool parallel) {
  nlohmann::json key = nlohmann::json::array();
  for (const ToolFunction& f : functions) key.push_back({f.name, f.parameters});
  return "tools:" + std::string(chat::ToolCallFormatName(format)) + (parallel ? ":parallel:" : ":one:") +
         key.dump();
}

Result<Grammar> ToolCallGrammar(chat::ToolCallFormat format, const std::vector<ToolFunction>& functions,
                                bool parallel) {
  if (functions.empty()) return InvalidArgument("there must be at least one function to call");
  const Syntax syntax = SyntaxOf(format);
  Grammar g;
  g.root = grammar::AddRule(g, "root");
  const int32_t call = grammar::AddRule(g, "call");
  for (const ToolFunction& f : functions) {
    Result<Grammar> args = grammar::CompileJsonSchema(f.parameters);
    if (!args.ok())
      return InvalidArgument("function '" + f.name + "' parameters: " + args.status().message());
    const int32_t args_root = SpliceGrammar(g, *args);
    Sequence alternative = Cat(Literal(syntax.call_open), Literal(f.name));
    alternative = Cat(std::move(alternative), Literal(syntax.call_mid));
    alternative.push_back(Ref(args_root));
    g.rules[size_t(call)].alternatives.push_back(Cat(std::move(alternative), Literal(syntax.call_close)));
  }
  Sequence calls = {Ref(call)};
  if (parallel) {
    // more ::= separator call more | ε
    const int32_t more = grammar::AddRule(g, "more-calls");
    g.rules[size_t(more)].alternatives = {Cat(Literal(syntax.separator), {Ref(call), Ref(more)}), {}};
    calls.push_back(Ref(more));
  }
  g.rules[size_t(g.root)].alternatives = {
      Cat(Cat(Literal(syntax.list_open), calls), Literal(syntax.list_close))};
  return g;
}

}  // namespace vt::server
