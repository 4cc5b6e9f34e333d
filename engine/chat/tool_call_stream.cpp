#include "engine/chat/tool_call_stream.h"

#include <algorithm>

#include "engine/chat/tool_call_json.h"

namespace vt::chat {
namespace {

// The length of `text` without its trailing whitespace.
size_t TrimmedLength(std::string_view text) {
  size_t n = text.size();
  while (n > 0 && (text[n - 1] == ' ' || text[n - 1] == '\n' || text[n - 1] == '\t' || text[n - 1] == '\r'))
    --n;
  return n;
}

}  // namespace

ToolCallStream::ToolCallStream(std::unique_ptr<const ToolCallSyntax> syntax, size_t max_calls,
                               std::vector<std::string> names)
    : syntax_(std::move(syntax)), max_calls_(max_calls), names_(std::move(names)) {}

bool ToolCallStream::Offered(const std::vector<ToolCall>& calls) const {
  if (names_.empty()) return true;
  return std::all_of(calls.begin(), calls.end(), [&](const ToolCall& call) {
    return std::find(names_.begin(), names_.end(), call.name) != names_.end();
  });
}

void ToolCallStream::Feed(std::string_view text, std::string* content, std::vector<ToolCall>* calls) {
  pending_.append(text);
  Drain(false, content, calls);
}

void ToolCallStream::Finish(std::string* content, std::vector<ToolCall>* calls) {
  Drain(true, content, calls);
}

void ToolCallStream::Release(std::string_view text, std::string* content) {
  if (text.empty()) return;
  content->append(text);
  answer_started_ = true;
}

void ToolCallStream::Drain(bool final, std::string* content, std::vector<ToolCall>* calls) {
  while (!pending_.empty()) {
    if (in_region_) {
      size_t n = syntax_->RegionLength(pending_);
      if (n == std::string::npos) {
        if (!final) return;
        n = pending_.size();
      }
      const std::string region = pending_.substr(0, n);
      pending_.erase(0, n);
      in_region_ = false;
      answer_started_ = true;
      std::optional<std::vector<ToolCall>> parsed = syntax_->ParseRegion(region);
      if (parsed && Offered(*parsed)) {
        for (ToolCall& call : *parsed) {
          if (calls_made_ < max_calls_) calls->push_back(std::move(call));
          ++calls_made_;
        }
        skip_space_ = true;
      } else {
        Release(region, content);
      }
      continue;
    }
    if (skip_space_) {
      const size_t first = SkipSpace(pending_);
      pending_.erase(0, first);
      if (pending_.empty()) return;
      skip_space_ = false;
    }
    const RegionStart start = syntax_->FindStart(pending_, !answer_started_);
    if (start.pos == std::string::npos || (start.partial && final)) {
      // Trailing whitespace waits: it is dropped if a call follows it or ends an answer that made
      // calls, and released with the next content otherwise.
      const size_t n = final && calls_made_ == 0 ? pending_.size() : TrimmedLength(pending_);
      Release(std::string_view(pending_).substr(0, n), content);
      pending_.erase(0, final ? pending_.size() : n);
      return;
    }
    if (start.partial) {
      const size_t n = TrimmedLength(std::string_view(pending_).substr(0, start.pos));
      Release(std::string_view(pending_).substr(0, n), content);
      pending_.erase(0, n);
      return;
    }
    Release(
        std::string_view(pending_).substr(0, TrimmedLength(std::string_view(pending_).substr(0, start.pos))),
        content);
    pending_.erase(0, start.pos);
    in_region_ = true;
  }
}

}  // namespace vt::chat
