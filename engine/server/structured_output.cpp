#include "engine/server/structured_output.h"

#include <algorithm>
#include <functional>
#include <string>
#include <variant>
#include <vector>

#include "engine/grammar/choice_grammar.h"
#include "engine/grammar/json_schema_grammar.h"
#include "engine/server/bounded_json.h"

namespace vt::server {
namespace {

using json = nlohmann::json;
using Constraint = std::shared_ptr<const grammar::GrammarConstraint>;

bool Present(const json& object, const char* key) { return object.contains(key) && !object[key].is_null(); }

std::variant<Constraint, ApiError> Lookup(const ModelContext& model, const std::string& param, const std::string& key,
                                          const std::function<Result<grammar::Grammar>()>& compile) {
  if (!model.grammars) return BadRequest("'" + param + "' needs the model's tokenizer, and this model has none", param);
  Result<Constraint> c = model.grammars->Get(key, compile);
  if (!c.ok()) return BadRequest("'" + param + "': " + c.status().message(), param);
  return *c;
}

// A JSON Schema given as an object, or (guided_json only) as a JSON string holding one.
std::variant<Constraint, ApiError> Schema(const json& schema, const ModelContext& model, const std::string& param) {
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
  return Lookup(model, param, "schema:" + parsed.dump(), [&] { return grammar::CompileJsonSchema(parsed); });
}

std::variant<Constraint, ApiError> Choice(const json& choices, const ModelContext& model, const std::string& param) {
  if (!choices.is_array() || choices.empty() ||
      !std::all_of(choices.begin(), choices.end(), [](const json& c) { return c.is_string(); })) {
    return BadRequest("'" + param + "' must be a non-empty list of strings", param);
  }
  const std::vector<std::string> list = choices.get<std::vector<std::string>>();
  return Lookup(model, param, "choice:" + choices.dump(), [&] { return grammar::ChoiceGrammar(list); });
}

std::variant<Constraint, ApiError> ResponseFormat(const json& format, const ModelContext& model) {
  const std::string param = "response_format";
  if (!format.is_object() || !format.contains("type") || !format["type"].is_string()) {
    return BadRequest("'response_format' must be an object with a string 'type'", param);
  }
  const std::string type = format["type"].get<std::string>();
  if (type == "text") return Constraint();
  if (type == "json_object") return Lookup(model, param, "json_object", [] { return Result(grammar::JsonObjectGrammar()); });
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
  return Schema(spec["schema"], model, param);
}

}  // namespace

std::optional<ApiError> ParseStructuredOutput(const json& body, const ModelContext& model, SamplingParams* params) {
  for (const char* refused : {"guided_regex", "guided_grammar"}) {
    if (Present(body, refused)) {
      return BadRequest(std::string("'") + refused + "' is not supported: vt constrains outputs by JSON Schema "
                                                     "(response_format, guided_json) or guided_choice only",
                        refused);
    }
  }
  if (Present(body, "tool_choice")) {
    const json& tc = body["tool_choice"];
    if (!tc.is_string() || (tc != "none" && tc != "auto")) {
      return BadRequest("'tool_choice' other than \"none\" or \"auto\" is not supported: vt does not parse tool calls",
                        "tool_choice");
    }
  }

  // Each source of a constraint, with the field named in errors.
  std::vector<std::pair<std::string, std::function<std::variant<Constraint, ApiError>()>>> sources;
  if (Present(body, "response_format")) {
    sources.emplace_back("response_format", [&] { return ResponseFormat(body["response_format"], model); });
  }
  if (Present(body, "guided_json")) {
    sources.emplace_back("guided_json", [&] { return Schema(body["guided_json"], model, "guided_json"); });
  }
  if (Present(body, "guided_choice")) {
    sources.emplace_back("guided_choice", [&] { return Choice(body["guided_choice"], model, "guided_choice"); });
  }
  if (Present(body, "structured_outputs")) {
    const json& so = body["structured_outputs"];
    const std::string param = "structured_outputs";
    if (!so.is_object()) return BadRequest("'structured_outputs' must be an object", param);
    for (const auto& [key, value] : so.items()) {
      if (value.is_null() || value == false) continue;
      if (key == "json") {
        sources.emplace_back(param, [&, v = value] { return Schema(v, model, param); });
      } else if (key == "choice") {
        sources.emplace_back(param, [&, v = value] { return Choice(v, model, param); });
      } else if (key == "json_object" && value == true) {
        sources.emplace_back(param, [&] {
          return Lookup(model, param, "json_object", [] { return Result(grammar::JsonObjectGrammar()); });
        });
      } else {
        return BadRequest("'structured_outputs' '" + key + "' is not supported: only json, json_object and choice", param);
      }
    }
  }
  if (sources.empty()) return std::nullopt;
  if (sources.size() > 1) {
    return BadRequest("'" + sources[1].first + "' cannot be combined with '" + sources[0].first +
                          "': a request has at most one structured output",
                      sources[1].first);
  }
  std::variant<Constraint, ApiError> c = sources[0].second();
  if (auto* e = std::get_if<ApiError>(&c)) return *e;
  params->grammar = std::get<Constraint>(c);
  if (params->grammar && params->ignore_eos) {
    return BadRequest("'ignore_eos' cannot be combined with a structured output: it ends with EOS", "ignore_eos");
  }
  return std::nullopt;
}

}  // namespace vt::server
