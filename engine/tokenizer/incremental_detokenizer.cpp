#include "engine/tokenizer/incremental_detokenizer.h"

#include <algorithm>

namespace vt {

namespace {

constexpr const char* kReplacement = "\xef\xbf\xbd";

bool EndsWithReplacement(const std::string& s) {
  return s.size() >= 3 && s.compare(s.size() - 3, 3, kReplacement) == 0;
}

}  // namespace

IncrementalDetokenizer::IncrementalDetokenizer(std::shared_ptr<const Tokenizer> tokenizer, bool skip_special_tokens,
                                               std::vector<int32_t> prompt)
    : tokenizer_(std::move(tokenizer)), skip_special_(skip_special_tokens), ids_(std::move(prompt)) {
  // A few prompt tokens of context, so the first generated token decodes as
  // it would mid-text (no start-of-text space stripping).
  read_offset_ = ids_.size();
  prefix_offset_ = ids_.size() - std::min<size_t>(ids_.size(), 5);
}

std::string IncrementalDetokenizer::DecodeRange(size_t begin, size_t end) const {
  return tokenizer_->Decode(std::vector<int32_t>(ids_.begin() + begin, ids_.begin() + end), skip_special_);
}

std::string IncrementalDetokenizer::Add(int32_t id) {
  ids_.push_back(id);
  const std::string before = DecodeRange(prefix_offset_, read_offset_);
  const std::string now = DecodeRange(prefix_offset_, ids_.size());
  if (now.size() <= before.size() || EndsWithReplacement(now)) return "";
  std::string delta = now.compare(0, before.size(), before) == 0 ? now.substr(before.size()) : now;
  prefix_offset_ = read_offset_;
  read_offset_ = ids_.size();
  return delta;
}

std::string IncrementalDetokenizer::Flush() {
  const std::string before = DecodeRange(prefix_offset_, read_offset_);
  const std::string now = DecodeRange(prefix_offset_, ids_.size());
  prefix_offset_ = read_offset_ = ids_.size();
  if (now.size() <= before.size()) return "";
  return now.compare(0, before.size(), before) == 0 ? now.substr(before.size()) : now;
}

}  // namespace vt
