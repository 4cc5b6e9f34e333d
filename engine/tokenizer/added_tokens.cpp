#include "engine/tokenizer/added_tokens.h"

#include <algorithm>
#include <cctype>

namespace vt {

namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }
bool IsWordByte(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || (c & 0x80); }

}  // namespace

AddedTokenMatcher::AddedTokenMatcher(std::vector<AddedToken> tokens) : tokens_(std::move(tokens)) {
  tokens_.erase(std::remove_if(tokens_.begin(), tokens_.end(), [](const AddedToken& t) { return t.content.empty(); }),
                tokens_.end());
  std::stable_sort(tokens_.begin(), tokens_.end(),
                   [](const AddedToken& a, const AddedToken& b) { return a.content.size() > b.content.size(); });
}

std::vector<TextSegment> AddedTokenMatcher::Split(std::string_view text) const {
  std::vector<TextSegment> out;
  size_t start = 0;  // beginning of the pending plain text
  size_t pos = 0;
  while (pos < text.size()) {
    const AddedToken* hit = nullptr;
    // Added tokens are few (tens to hundreds) and all start with a
    // punctuation-like byte in practice, so a scan per position is cheap.
    for (const AddedToken& t : tokens_) {
      if (text.compare(pos, t.content.size(), t.content) != 0) continue;
      if (t.single_word) {
        const bool left_ok = pos == 0 || !IsWordByte(text[pos - 1]);
        const size_t e = pos + t.content.size();
        const bool right_ok = e >= text.size() || !IsWordByte(text[e]);
        if (!left_ok || !right_ok) continue;
      }
      hit = &t;
      break;
    }
    if (hit == nullptr) {
      ++pos;
      continue;
    }
    size_t left = pos, right = pos + hit->content.size();
    if (hit->lstrip) {
      while (left > start && IsSpace(text[left - 1])) --left;
    }
    if (hit->rstrip) {
      while (right < text.size() && IsSpace(text[right])) ++right;
    }
    if (left > start) out.push_back({text.substr(start, left - start), -1});
    out.push_back({{}, hit->id});
    start = pos = right;
  }
  if (start < text.size()) out.push_back({text.substr(start), -1});
  return out;
}

}  // namespace vt
