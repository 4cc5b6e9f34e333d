#include "engine/chat/reasoning_stream.h"

#include <string>

#include "engine/chat/tool_call_json.h"

namespace vt::chat {
namespace {

constexpr std::string_view kOpen = "<think>";
constexpr std::string_view kClose = "</think>";

std::string_view TrimEnd(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

}  // namespace

Result<ReasoningFormat> ReasoningFormatNamed(std::string_view name) {
  if (name == "none") return ReasoningFormat::kNone;
  if (name == "qwen3" || name == "deepseek_r1") return ReasoningFormat::kQwen3;
  return InvalidArgument("unknown reasoning parser '" + std::string(name) + "' (qwen3, deepseek_r1, none)");
}

std::string_view ReasoningFormatName(ReasoningFormat format) {
  return format == ReasoningFormat::kQwen3 ? "qwen3" : "none";
}

ReasoningFormat DetectReasoningFormat(std::string_view source) {
  return source.find(kClose) != std::string_view::npos ? ReasoningFormat::kQwen3 : ReasoningFormat::kNone;
}

ReasoningStart ReasoningStartOf(std::string_view prompt) {
  const std::string_view tail = TrimEnd(prompt);
  if (tail.size() >= kClose.size() && tail.substr(tail.size() - kClose.size()) == kClose)
    return ReasoningStart::kAnswer;
  if (tail.size() >= kOpen.size() && tail.substr(tail.size() - kOpen.size()) == kOpen)
    return ReasoningStart::kInside;
  return ReasoningStart::kMaybe;
}

ReasoningStream::ReasoningStream(ReasoningStart start)
    : state_(start == ReasoningStart::kMaybe    ? State::kUndecided
             : start == ReasoningStart::kInside ? State::kReasoning
                                                : State::kAnswer),
      skip_space_(start != ReasoningStart::kMaybe) {}

void ReasoningStream::Feed(std::string_view text, std::string* reasoning, std::string* answer) {
  pending_.append(text);
  Drain(false, reasoning, answer);
}

void ReasoningStream::Finish(std::string* reasoning, std::string* answer) { Drain(true, reasoning, answer); }

void ReasoningStream::Drain(bool final, std::string* reasoning, std::string* answer) {
  while (true) {
    if (skip_space_) {
      pending_.erase(0, SkipSpace(pending_));
      if (pending_.empty()) return;
      skip_space_ = false;
    }
    if (pending_.empty()) return;
    switch (state_) {
      case State::kUndecided: {
        const size_t first = SkipSpace(pending_);
        const std::string_view rest = std::string_view(pending_).substr(first);
        if (rest.substr(0, kOpen.size()) == kOpen) {
          pending_.erase(0, first + kOpen.size());
          state_ = State::kReasoning;
          skip_space_ = true;
          continue;
        }
        if (!final && kOpen.substr(0, rest.size()) == rest) return;  // may still become <think>
        state_ = State::kAnswer;
        continue;
      }
      case State::kReasoning: {
        const RegionStart close = FindMarker(pending_, kClose);
        if (close.pos == std::string::npos || (close.partial && final)) {
          reasoning->append(pending_);
          pending_.clear();
          return;
        }
        reasoning->append(pending_, 0, close.pos);
        if (close.partial) {
          pending_.erase(0, close.pos);
          return;
        }
        pending_.erase(0, close.pos + kClose.size());
        state_ = State::kAnswer;
        skip_space_ = true;
        continue;
      }
      case State::kAnswer:
        answer->append(pending_);
        pending_.clear();
        return;
    }
  }
}

}  // namespace vt::chat
