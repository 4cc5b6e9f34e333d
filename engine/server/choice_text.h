// The text of one choice as its tokens arrive: detokenised incrementally (never half a UTF-8
// character) and checked against the request's stop strings across token boundaries. Text
// that could still turn out to be the start of a stop string is held back until it cannot.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/tokenizer/incremental_detokenizer.h"

namespace vt::server {

class ChoiceText {
 public:
  ChoiceText(std::shared_ptr<const Tokenizer> tokenizer, std::vector<int32_t> prompt, std::vector<std::string> stop);

  // Adds a generated token; returns the text that may be sent now. Sets *stopped when a stop
  // string matched: the returned text then ends right before it and nothing follows.
  std::string Add(int32_t token, bool* stopped);

  // The text still held back, once the choice ends without a stop string.
  std::string Finish();

  const std::string& text() const { return text_; }  // everything released so far

 private:
  std::string Release(size_t n);

  IncrementalDetokenizer detok_;
  std::vector<std::string> stop_;
  size_t longest_stop_ = 0;
  std::string held_;
  std::string text_;
  bool stopped_ = false;
};

}  // namespace vt::server
