// tokenizer.json's decoder chain (ByteLevel; Replace, ByteFallback, Fuse,
// Strip; Metaspace), turning token strings back into text the way HF's
// decode_chain does, one step over the whole token list at a time.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "engine/core/status.h"

namespace vt {

class TextDecoder {
 public:
  static Result<TextDecoder> FromJson(const nlohmann::json& j);
  std::string Decode(std::vector<std::string> tokens) const;

 private:
  struct Step {
    enum Kind { kByteLevel, kReplace, kByteFallback, kFuse, kStrip, kMetaspace } kind = kFuse;
    std::string a = {}, b = {};  // kReplace: from, to; kStrip: content
    int start = 0, stop = 0;
    bool prepend = false;  // kMetaspace: strip the first token's leading space
  };
  static Status Parse(const nlohmann::json& j, std::vector<Step>* steps);
  std::vector<Step> steps_;
};

}  // namespace vt
