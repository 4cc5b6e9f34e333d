// A chat request's tools: `tools`, `tool_choice` (none, auto, required, or a named function) and
// `parallel_tool_calls`, checked against each other and against the model's tool-call format.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <variant>
#include <vector>

#include "engine/server/api_error.h"
#include "engine/server/model_context.h"

namespace vt::server {

struct ToolFunction {
  std::string name;
  nlohmann::json parameters;  // a JSON Schema; an object without properties when the tool declares none
};

struct ToolRequest {
  enum class Choice {
    kNone,      // no tools, or tool_choice "none": the output is not parsed for calls
    kAuto,      // the model may call tools; its calls are parsed out of the output
    kRequired,  // at least one call, forced by a grammar over `functions`
    kNamed,     // one call of `functions[0]`, forced by a grammar
  };
  Choice choice = Choice::kNone;
  // kRequired and kAuto: every tool; kNamed: the named one. Calls of any other are not calls.
  std::vector<ToolFunction> functions;
  bool parallel = true;  // parallel_tool_calls: false allows at most one call

  bool forced() const { return choice == Choice::kRequired || choice == Choice::kNamed; }
};

std::variant<ToolRequest, ApiError> ParseToolRequest(const nlohmann::json& body, const ModelContext& model);

}  // namespace vt::server
