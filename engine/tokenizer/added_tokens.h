// Added tokens (special or not) are matched in the raw text before anything
// else runs, leftmost first and longest at a position, as HF's
// AddedVocabulary does; the text between them goes through the pipeline.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vt {

struct AddedToken {
  int32_t id = 0;
  std::string content;
  bool special = false;
  bool lstrip = false;  // the match absorbs whitespace on its left
  bool rstrip = false;  // ... and on its right
  bool single_word = false;
};

struct TextSegment {
  std::string_view text;  // used when added_id < 0
  int32_t added_id = -1;
};

class AddedTokenMatcher {
 public:
  explicit AddedTokenMatcher(std::vector<AddedToken> tokens);
  std::vector<TextSegment> Split(std::string_view text) const;
  const std::vector<AddedToken>& tokens() const { return tokens_; }

 private:
  std::vector<AddedToken> tokens_;  // longest content first
};

}  // namespace vt
