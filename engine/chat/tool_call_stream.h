// Tool calls out of a stream of answer text, for any ToolCallSyntax: text outside tool-call
// regions is released as content as soon as no region can start in it; a region is held until it
// is complete and then released as its calls, or as content when it does not parse (a malformed
// call in `auto` mode is text, never an error). Whitespace next to a call is dropped, so content
// that only separated calls comes back empty. The server feeds the same stream for streamed and
// whole responses, so both give the same content and calls.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/chat/tool_call.h"

namespace vt::chat {

class ToolCallStream {
 public:
  // Calls past `max_calls` (1 when parallel calls are off) are dropped. `names`: the functions the
  // request offers; a region that calls any other is content (so JSON that only looks like a call,
  // {"name": "Bob", ...}, stays text). Empty: any name.
  ToolCallStream(std::unique_ptr<const ToolCallSyntax> syntax, size_t max_calls,
                 std::vector<std::string> names = {});

  // Appends what became final to `content` and `calls`.
  void Feed(std::string_view text, std::string* content, std::vector<ToolCall>* calls);
  // The output ended: releases whatever is held.
  void Finish(std::string* content, std::vector<ToolCall>* calls);

  size_t calls_made() const { return calls_made_; }

 private:
  void Drain(bool final, std::string* content, std::vector<ToolCall>* calls);
  void Release(std::string_view text, std::string* content);
  bool Offered(const std::vector<ToolCall>& calls) const;

  std::unique_ptr<const ToolCallSyntax> syntax_;
  size_t max_calls_;
  std::vector<std::string> names_;
  std::string pending_;          // not yet released
  bool in_region_ = false;       // pending_ starts with a tool-call region
  bool skip_space_ = false;      // whitespace right after a call is dropped
  bool answer_started_ = false;  // content (other than whitespace) or a call has been seen
  size_t calls_made_ = 0;
};

}  // namespace vt::chat
