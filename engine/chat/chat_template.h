// Chat templates: the Jinja subset that Hugging Face chat templates use (Qwen3, Llama-3,
// Llama-2, Mistral), rendered over JSON values. A template is parsed once; a construct
// outside the subset is an error at parse time that names it, so a server refuses such a
// model at start-up instead of failing per request.
//
// Supported: text, {{ expr }}, {% if/elif/else %}, {% for x in expr [if cond] %} (with loop.index0,
// index, first, last, length and {% else %}), {% set name = expr %} and {% set ns.attr = expr %},
// whitespace control ({%- -%} {{- -}}), comments; expressions with literals, names, .attr,
// [index], [start:stop:step], + - * / % ~, comparisons, in / not in, and / or / not, is
// [not] defined / none / string / number / mapping / sequence / true / false, if-else
// expressions, filters length / count / trim / tojson / string / list / first / last / lower /
// upper / default / join / items / map / select / reject / selectattr / rejectattr (with the
// tests above and equalto / ne), the string methods startswith / endswith / strip / lstrip /
// rstrip / split / replace / lower / upper / title, dict.items() / keys() / values() / get(),
// and the calls namespace(...) and raise_exception(msg).
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace vt {

class ChatTemplate {
 public:
  static Result<std::shared_ptr<const ChatTemplate>> Parse(const std::string& source);

  // Renders with `context` as the global variables (messages, add_generation_prompt,
  // bos_token, ...). raise_exception and type errors come back as InvalidArgument. Objects keep
  // their keys in the order given, as Python's dicts do: `tool | tojson` and `dict.items()`
  // follow the client's order, as in Hugging Face's rendering.
  Result<std::string> Render(const nlohmann::ordered_json& context) const;

  // The template text: the tool-call and reasoning formats are recognised from it.
  const std::string& source() const { return source_; }

  struct Node;

 private:
  std::shared_ptr<const Node> root_;
  std::string source_;
};

}  // namespace vt
