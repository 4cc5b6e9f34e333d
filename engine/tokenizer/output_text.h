// The text of one request's output as its tokens arrive: detokenised incrementally (never half
// a UTF-8 character) and checked against the request's stop strings across token boundaries.
// Text that could still turn out to be the start of a stop string is held back until it cannot.
// The engine owns one per request, so a stop string ends the request there (finish "stop",
// counted like any other finished request) for every front end alike.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/tokenizer/incremental_detokenizer.h"

namespace vt {

class OutputText {
 public:
  OutputText(std::shared_ptr<const Tokenizer> tokenizer, std::vector<int32_t> prompt, std::vector<std::string> stop);

  // Adds a generated token; returns the text that may be released now. Sets *stopped when a stop
  // string matched: the returned text then ends right before it and nothing follows.
  std::string Add(int32_t token, bool* stopped);

  // The text still held back, once the output ends without a stop string.
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

}  // namespace vt
