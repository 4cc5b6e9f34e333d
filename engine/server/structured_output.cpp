#include "engine/server/structured_output.h"

#include <algorithm>
#include <functional>
#include <string>
#include <variant>
#include <vector>

#include "engine/grammar/choice_grammar.h"
#include "engine/grammar/ebnf_grammar.h"
#include "engine/grammar/json_schema_grammar.h"
#include "engine/grammar/regex_grammar.h"
#include "engine/server/bounded_json.h"
#include "engine/server/reasoning_grammar.h"
#include "engine/server/tool_call_grammar.h"

namespace vt::server {
namespace {

using json = nlohmann::json;
using Constraint = std::shared_ptr<const grammar::GrammarConstraint>;

bool Present(const json& object, const char* key) { return object.contains(key) && !object[key].is_null(); }

// A grammar to be: its cache key (kind and canonical text) and how to compile it. An empty key
// is no constraint (response_format text).
struct Source {
  std::string key;
  std::function<Result<grammar::Grammar>()> compile;
};

// A JSON Schema given as an object, or (guided_json only) as a JSON string holding one.
std::variant<Source, ApiError> Schema(const json& schema, const std::string& param) {
  json parsed = schema;
  if (schema.is_string()) {
    Result<json> text = ParseBoundedJson(schema.get<std::string>());
    if (!text.ok()) return BadRequest("'" + param + "' " + text.status().message(), param);
    parsed = std::move(*text);
  }
  if (!parsed.is_object() && !parsed.is_boolean()) {
    return BadRequest("'" + param + "' must be a JSON Schema object", param);
  }
  // json objects keep their keys sorted, so the dump is the same text for the same schema.
  return Source{"schema:" + parsed.dump(), [parsed] { return grammar::CompileJsonSchema(parsed); }};
}

std::variant<Source, ApiError> Choice(const json& choices, const std::string& param) {
  if (!choices.is_array() || choices.empty() ||
      !std::all_of(choices.begin(), choices.end(), [](const json& c) { return c.is_string(); })) {
    return BadRequest("'" + param + "' must be a non-empty list of strings", param);
  }
  const std::vector<std::string> list = choices.get<std::vector<std::string>>();
  return Source{"choice:" + choices.dump(), [list] { return grammar::ChoiceGrammar(list); }};
}

// The output matches the whole regex; its text is the cache key as given (two spellings of one
// language compile twice, which costs time, not correctness).
std::variant<Source, ApiError> Regex(const json& pattern, const std::string& param) {
  if (!pattern.is_string()) return BadRequest("'" + param + "' regex must be a string", param);
  std::string text = pattern.get<std::string>();
  return Source{"regex:" + text, [text] { return grammar::CompileRegex(text); }};
}

// A GBNF grammar's text (ebnf_syntax.h), its own cache key as given.
std::variant<Source, ApiError> Ebnf(const json& text, const std::string& param) {
  if (!text.is_string()) return BadRequest("'" + param + "' grammar must be a string of GBNF rules", param);
  std::string source = text.get<std::string>();
  return Source{"ebnf:" + source, [source] { return grammar::CompileEbnf(source); }};
}

Source JsonObject() {
  return {"json_object", [] { return Result(grammar::JsonObjectGrammar()); }};
}

std::variant<Source, ApiError> ResponseFormat(const json& format) {
  const std::string param = "response_format";
  if (!format.is_object() || !format.contains("type") || !format["type"].is_string()) {
    return BadRequest("'response_format' must be an object with a string 'type'", param);
  }
  const std::string type = format["type"].get<std::string>();
  if (type == "text") return Source();
  if (type == "json_object") return JsonObject();
  if (type != "json_schema") {
    return BadRequest("'response_format' type '" + type + "' is not one of text, json_object, json_schema", param);
  }
  if (!format.contains("json_schema") || !format["json_schema"].is_object()) {
    return BadRequest("'response_format' of type json_schema needs a 'json_schema' object", param);
  }
  const json& spec = format["json_schema"];
  if (Present(spec, "name") && !spec["name"].is_string()) {
    return BadRequest("'response_format' json_schema 'name' must be a string", param);
  }
  if (Present(spec, "strict") && !spec["strict"].is_boolean()) {
    return BadRequest("'response_format' json_schema 'strict' must be a boolean", param);
  }
  // The output always meets the schema, strict or not: vt has no looser mode.
  if (!spec.contains("schema") || !(spec["schema"].is_object() || spec["schema"].is_boolean())) {
    return BadRequest("'response_format' json_schema needs a 'schema' object", param);
  }
  return Schema(spec["schema"], param);
}

std::variant<Source, ApiError> ToolCalls(const ToolRequest& tools, const ModelContext& model) {
  const chat::ToolCallFormat format = model.tool_call_format;
  return Source{ToolCallGrammarKey(format, tools.functions, tools.parallel),
                [format, fns = tools.functions, parallel = tools.parallel] {
                  return ToolCallGrammar(format, fns, parallel);
                }};
}

}  // namespace

std::optional<ApiError> ParseStructuredOutput(const json& body, const ModelContext& model,
                                              const ToolRequest* tools,
                                              std::optional<chat::ReasoningStart> reasoning,
                                              SamplingParams* params) {
  if (tools == nullptr && Present(body, "tool_choice")) {
    const json& tc = body["tool_choice"];
    if (!tc.is_string() || (tc != "none" && tc != "auto")) {
      return BadRequest("'tool_choice' is for /v1/chat/completions: completions have no tools",
                        "tool_choice");
    }
  }

  // Each source of a constraint, with the field named in errors.
  std::vector<std::pair<std::string, std::function<std::variant<Source, ApiError>()>>> sources;
  if (Present(body, "response_format")) {
    sources.emplace_back("response_format", [&] { return ResponseFormat(body["response_format"]); });
  }
  if (Present(body, "guided_json")) {
    sources.emplace_back("guided_json", [&] { return Schema(body["guided_json"], "guided_json"); });
  }
  if (Present(body, "guided_choice")) {
    sources.emplace_back("guided_choice", [&] { return Choice(body["guided_choice"], "guided_choice"); });
  }
  if (Present(body, "guided_regex")) {
    sources.emplace_back("guided_regex", [&] { return Regex(body["guided_regex"], "guided_regex"); });
  }
  if (Present(body, "guided_grammar")) {
    sources.emplace_back("guided_grammar", [&] { return Ebnf(body["guided_grammar"], "guided_grammar"); });
  }
  if (Present(body, "structured_outputs")) {
    const json& so = body["structured_outputs"];
    const std::string param = "structured_outputs";
    if (!so.is_object()) return BadRequest("'structured_outputs' must be an object", param);
    for (const auto& [key, value] : so.items()) {
      if (value.is_null() || value == false) continue;
      if (key == "json") {
        sources.emplace_back(param, [&, v = value] { return Schema(v, param); });
      } else if (key == "choice") {
        sources.emplace_back(param, [&, v = value] { return Choice(v, param); });
      } else if (key == "regex") {
        sources.emplace_back(param, [&, v = value] { return Regex(v, param); });
      } else if (key == "grammar") {
        sources.emplace_back(param, [&, v = value] { return Ebnf(v, param); });
      } else if (key == "json_object" && value == true) {
        sources.emplace_back(param, [] { return std::variant<Source, ApiError>(JsonObject()); });
      } else {
        return BadRequest("'structured_outputs' '" + key + "' is not supported: only json, json_object, choice, regex and grammar", param);
      }
    }
  }
  if (tools != nullptr && tools->forced()) {
    sources.emplace_back("tool_choice", [&] { return ToolCalls(*tools, model); });
  }
  if (sources.empty()) return std::nullopt;
  if (sources.size() > 1) {
    return BadRequest("'" + sources[1].first + "' cannot be combined with '" + sources[0].first +
                          "': a request has at most one structured output",
                      sources[1].first);
  }
  const std::string& param = sources[0].first;
  std::variant<Source, ApiError> made = sources[0].second();
  if (auto* e = std::get_if<ApiError>(&made)) return *e;
  Source source = std::get<Source>(std::move(made));
  if (source.key.empty()) return std::nullopt;
  if (!model.grammars)
    return BadRequest("'" + param + "' needs the model's tokenizer, and this model has none", param);
  // The grammar applies to the answer after the reasoning (see reasoning_grammar.h).
  if (reasoning && *reasoning != chat::ReasoningStart::kAnswer) {
    source.key += *reasoning == chat::ReasoningStart::kInside ? "|after-open-think" : "|after-optional-think";
    source.compile = [compile = std::move(source.compile), start = *reasoning]() -> Result<grammar::Grammar> {
      Result<grammar::Grammar> answer = compile();
      if (!answer.ok()) return answer.status();
      return AfterReasoning(*answer, start);
    };
  }
  Result<Constraint> c = model.grammars->Get(source.key, source.compile);
  if (!c.ok()) {
    // A tool's parameters schema is part of `tools`; the message names the function.
    const std::string field = param == "tool_choice" ? "tools" : param;
    return BadRequest("'" + field + "': " + c.status().message(), field);
  }
  params->grammar = *c;
  if (params->grammar && params->ignore_eos) {
    return BadRequest("'ignore_eos' cannot be combined with a structured output: it ends with EOS", "ignore_eos");
  }
  return std::nullopt;
}

}  // namespace vt::server
