// tokenizer.json's decoder chain (ByteLevel; Replace, ByteFallback, Fuse,
// Strip; Metaspace), turning token strings back into text the way HF's
// decode_chain does, one step over the whole token list at a time.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "base/status.h"

namespace vt {

class TextDecoder {
 public:
  static Result<TextDecoder> FromJson(const nlohmann::json& j);
  std::string Decode(std::vector<std::string> tokens) const;
  // The bytes one token adds in the middle of a text: the chain without its UTF-8 repair and
  // without the steps that apply at the text's start only (Strip, Metaspace's prepend scheme).
  std::string TokenBytes(std::string token) const;

 private:
  struct Step {
    enum Kind { kByteLevel, kReplace, kByteFallback, kFuse, kStrip, kMetaspace } kind = kFuse;
    std::string a = {}, b = {};  // kReplace: from, to; kStrip: content
    int start = 0, stop = 0;
    bool prepend = false;  // kMetaspace: strip the first token's leading space
  };
  static Status Parse(const nlohmann::json& j, std::vector<Step>* steps);
  std::string Run(std::vector<std::string> tokens, bool raw) const;
  std::vector<Step> steps_;
};

}  // namespace vt
