// Qwen3-style reasoning: the answer may open with <think>…</think>; what is inside is the
// reasoning (OpenAI-compatible servers return it as reasoning_content), what follows is the answer.
// When the prompt already opened the block (templates that end the generation prompt with
// <think>), the output starts inside it. Works on a stream: text is released as soon as it cannot
// be part of a tag.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace vt::chat {

enum class ReasoningFormat {
  kNone,   // no reasoning split: everything is the answer
  kQwen3,  // <think>…</think> (Qwen3, DeepSeek-R1 style)
};

// --reasoning-parser names: qwen3 (deepseek_r1 as an alias) and none.
Result<ReasoningFormat> ReasoningFormatNamed(std::string_view name);
std::string_view ReasoningFormatName(ReasoningFormat format);
// kQwen3 when the template mentions </think>, else kNone.
ReasoningFormat DetectReasoningFormat(std::string_view template_source);

// Where the output of a prompt starts, for a model that reasons in <think> blocks.
enum class ReasoningStart {
  kMaybe,   // the output may open a block
  kInside,  // the prompt opened the block: the output starts in the reasoning
  kAnswer,  // the prompt closed it (enable_thinking false): the output is all answer
};
ReasoningStart ReasoningStartOf(std::string_view prompt);

class ReasoningStream {
 public:
  explicit ReasoningStream(ReasoningStart start);

  // Appends what became final to `reasoning` and `answer`.
  void Feed(std::string_view text, std::string* reasoning, std::string* answer);
  // The output ended: a block left open is all reasoning.
  void Finish(std::string* reasoning, std::string* answer);

 private:
  enum class State { kUndecided, kReasoning, kAnswer };
  void Drain(bool final, std::string* reasoning, std::string* answer);

  State state_;
  std::string pending_;
  bool skip_space_ = false;  // whitespace right after a tag belongs to neither part
};

}  // namespace vt::chat
