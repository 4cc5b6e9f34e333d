#include "engine/server/tool_request.h"

#include <algorithm>
#include <set>

namespace vt::server {
namespace {

using json = nlohmann::json;

bool Present(const json& object, const char* key) { return object.contains(key) && !object[key].is_null(); }

// OpenAI's rule for function names; it also keeps a name a plain JSON string and grammar literal.
bool ValidName(const std::string& name) {
  return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
}

std::variant<std::vector<ToolFunction>, ApiError> Functions(const json& tools) {
  if (!tools.is_array()) return BadRequest("'tools' must be a list of tools", "tools");
  std::vector<ToolFunction> out;
  std::set<std::string> names;
  for (size_t i = 0; i < tools.size(); ++i) {
    const std::string at = "tools[" + std::to_string(i) + "]";
    const json& tool = tools[i];
    if (!tool.is_object() || !tool.contains("type") || tool["type"] != "function") {
      return BadRequest("'" + at + "' must be {\"type\": \"function\", \"function\": {...}}", "tools");
    }
    if (!tool.contains("function") || !tool["function"].is_object()) {
      return BadRequest("'" + at + ".function' must be an object", "tools");
    }
    const json& f = tool["function"];
    if (!f.contains("name") || !f["name"].is_string() || !ValidName(f["name"].get<std::string>())) {
      return BadRequest("'" + at + ".function.name' must be 1 to 64 letters, digits, '_' or '-'", "tools");
    }
    ToolFunction fn;
    fn.name = f["name"].get<std::string>();
    if (!names.insert(fn.name).second)
      return BadRequest("'tools' names the function '" + fn.name + "' twice", "tools");
    if (Present(f, "parameters")) {
      if (!f["parameters"].is_object()) {
        return BadRequest("'" + at + ".function.parameters' must be a JSON Schema object", "tools");
      }
      fn.parameters = f["parameters"];
    } else {
      // OpenAI: a function declared without parameters takes none, so its arguments are {}.
      fn.parameters = {{"type", "object"}, {"properties", json::object()}, {"additionalProperties", false}};
    }
    out.push_back(std::move(fn));
  }
  return out;
}

}  // namespace

std::variant<ToolRequest, ApiError> ParseToolRequest(const json& body, const ModelContext& model) {
  ToolRequest r;
  const bool has_tools = Present(body, "tools") && !(body["tools"].is_array() && body["tools"].empty());
  if (Present(body, "tools")) {
    std::variant<std::vector<ToolFunction>, ApiError> fns = Functions(body["tools"]);
    if (auto* e = std::get_if<ApiError>(&fns)) return *e;
    r.functions = std::move(std::get<std::vector<ToolFunction>>(fns));
  }
  if (Present(body, "parallel_tool_calls")) {
    if (!body["parallel_tool_calls"].is_boolean()) {
      return BadRequest("'parallel_tool_calls' must be a boolean", "parallel_tool_calls");
    }
    r.parallel = body["parallel_tool_calls"].get<bool>();
  }
  r.choice = has_tools ? ToolRequest::Choice::kAuto : ToolRequest::Choice::kNone;
  if (Present(body, "tool_choice")) {
    const json& tc = body["tool_choice"];
    if (tc == "none") {
      r.choice = ToolRequest::Choice::kNone;
    } else if (tc == "auto") {
      r.choice = has_tools ? ToolRequest::Choice::kAuto : ToolRequest::Choice::kNone;
    } else if (tc == "required") {
      r.choice = ToolRequest::Choice::kRequired;
    } else if (tc.is_object() && tc.contains("type") && tc["type"] == "function" && tc.contains("function") &&
               tc["function"].is_object() && tc["function"].contains("name") &&
               tc["function"]["name"].is_string()) {
      const std::string name = tc["function"]["name"].get<std::string>();
      auto it = std::find_if(r.functions.begin(), r.functions.end(),
                             [&](const ToolFunction& f) { return f.name == name; });
      if (it == r.functions.end()) {
        return BadRequest("'tool_choice' names the function '" + name + "', which is not in 'tools'",
                          "tool_choice");
      }
      r.functions = {*it};
      r.choice = ToolRequest::Choice::kNamed;
    } else {
      return BadRequest(
          "'tool_choice' must be \"none\", \"auto\", \"required\" or "
          "{\"type\": \"function\", \"function\": {\"name\": ...}}",
          "tool_choice");
    }
    if (r.choice == ToolRequest::Choice::kRequired && !has_tools) {
      return BadRequest("'tool_choice' \"required\" needs 'tools'", "tool_choice");
    }
  }
  if (r.choice != ToolRequest::Choice::kNone && model.tool_call_format == chat::ToolCallFormat::kNone) {
    return BadRequest(
        "this model's chat template has no tool-call format, so its tool calls cannot be read; "
        "start vt serve with --tool-call-parser (hermes, llama3_json or mistral)",
        "tools");
  }
  return r;
}

}  // namespace vt::server
