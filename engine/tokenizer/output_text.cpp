#include "engine/tokenizer/output_text.h"

#include <algorithm>

namespace vt {

OutputText::OutputText(std::shared_ptr<const Tokenizer> tokenizer, std::vector<int32_t> prompt,
                       std::vector<std::string> stop)
    : detok_(std::move(tokenizer), /*skip_special_tokens=*/true, std::move(prompt)), stop_(std::move(stop)) {
  for (const std::string& s : stop_) longest_stop_ = std::max(longest_stop_, s.size());
}

std::string OutputText::Release(size_t n) {
  std::string out = held_.substr(0, n);
  held_.erase(0, n);
  text_ += out;
  return out;
}

std::string OutputText::Add(int32_t token, bool* stopped) {
  *stopped = stopped_;
  if (stopped_) return "";
  held_ += detok_.Add(token);
  size_t first = std::string::npos;
  for (const std::string& s : stop_) first = std::min(first, held_.find(s));
  if (first != std::string::npos) {
    stopped_ = *stopped = true;
    std::string out = Release(first);
    held_.clear();
    return out;
  }
  if (longest_stop_ == 0) return Release(held_.size());
  // Keep the last longest_stop - 1 bytes (a stop string may be starting there), moved left
  // to a character boundary so no UTF-8 sequence is split.
  size_t keep_from = held_.size() > longest_stop_ - 1 ? held_.size() - (longest_stop_ - 1) : 0;
  while (keep_from > 0 && keep_from < held_.size() && (static_cast<unsigned char>(held_[keep_from]) & 0xC0) == 0x80) {
    --keep_from;
  }
  return Release(keep_from);
}

std::string OutputText::Finish() {
  if (stopped_) return "";
  held_ += detok_.Flush();
  return Release(held_.size());
}

}  // namespace vt
