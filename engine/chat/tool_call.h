// Tool calls as the chat layer sees them in a model's output, and the output formats of the
// supported families. Each format's syntax lives in its own file (hermes_tool_calls.cpp,
// llama3_tool_calls.cpp, mistral_tool_calls.cpp); ToolCallStream runs any of them over a stream.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace vt::chat {

struct ToolCall {
  std::string name;
  std::string arguments;  // a JSON object's text, as OpenAI's function.arguments carries it
};

enum class ToolCallFormat {
  kNone,        // the model has no tool-call format: tools cannot be used
  kHermes,      // Qwen2.5 / Qwen3 / Hermes: <tool_call>{"name": .., "arguments": {..}}</tool_call>
  kLlama3Json,  // Llama 3.1+: {"name": .., "parameters": {..}} as the whole answer, after an optional
                // <|python_tag|>
  kMistral,     // Mistral: [TOOL_CALLS][{"name": .., "arguments": {..}}, ..]
};

// vLLM's --tool-call-parser names: hermes, llama3_json, mistral, and none.
Result<ToolCallFormat> ToolCallFormatNamed(std::string_view name);
std::string_view ToolCallFormatName(ToolCallFormat format);

// The format a chat template asks its model for, recognised from the markers in its text; kNone
// when the template renders no tools.
ToolCallFormat DetectToolCallFormat(std::string_view template_source);

// Where, in output text not yet released as content, a tool-call region starts.
struct RegionStart {
  size_t pos = std::string_view::npos;  // npos: no region can start in this text
  bool partial = false;  // the text ends with a proper prefix of a marker: hold it, it may become one
};

// One format's syntax: where its tool-call regions start and end, and what they hold.
class ToolCallSyntax {
 public:
  virtual ~ToolCallSyntax() = default;
  // `at_answer_start`: nothing but whitespace precedes `text` in the answer (formats whose calls
  // are the whole answer only start there).
  virtual RegionStart FindStart(std::string_view text, bool at_answer_start) const = 0;
  // The length of the complete region at the front of `region` (which starts where FindStart
  // pointed), or npos while it may still grow; regions that run to the end of the output are
  // complete only when the output ends.
  virtual size_t RegionLength(std::string_view region) const = 0;
  // The calls in a complete region; nullopt when it is malformed (it is then plain content).
  virtual std::optional<std::vector<ToolCall>> ParseRegion(std::string_view region) const = 0;
};

std::unique_ptr<const ToolCallSyntax> HermesToolCalls();
std::unique_ptr<const ToolCallSyntax> Llama3JsonToolCalls();
std::unique_ptr<const ToolCallSyntax> MistralToolCalls();
// Null for kNone.
std::unique_ptr<const ToolCallSyntax> ToolCallSyntaxFor(ToolCallFormat format);

}  // namespace vt::chat
