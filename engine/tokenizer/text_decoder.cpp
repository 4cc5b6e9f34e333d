#include "engine/tokenizer/text_decoder.h"

#include <nlohmann/json.hpp>

#include "engine/tokenizer/byte_level.h"
#include "engine/tokenizer/utf8.h"

namespace vt {

namespace {

std::string ReplaceAll(std::string s, const std::string& from, const std::string& to) {
  if (from.empty()) return s;
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  return s;
}

// "<0x41>" → 0x41; -1 for anything else.
int ByteToken(const std::string& t) {
  if (t.size() != 6 || t.compare(0, 3, "<0x") != 0 || t[5] != '>') return -1;
  int v = 0;
  for (int i = 3; i < 5; ++i) {
    const char c = t[i];
    const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

bool IsValidUtf8(const std::string& s) { return SanitizeUtf8(s) == s; }

}  // namespace

Status TextDecoder::Parse(const nlohmann::json& j, std::vector<Step>* steps) {
  if (j.is_null()) return Status::Ok();
  const std::string type = j.value("type", "");
  if (type == "Sequence") {
    for (const nlohmann::json& d : j.at("decoders")) VT_RETURN_IF_ERROR(Parse(d, steps));
  } else if (type == "ByteLevel") {
    steps->push_back({Step::kByteLevel});
  } else if (type == "Replace" && j.at("pattern").contains("String")) {
    steps->push_back({Step::kReplace, j["pattern"]["String"].get<std::string>(), j.at("content").get<std::string>()});
  } else if (type == "ByteFallback") {
    steps->push_back({Step::kByteFallback});
  } else if (type == "Fuse") {
    steps->push_back({Step::kFuse});
  } else if (type == "Strip") {
    Step s{Step::kStrip, j.at("content").get<std::string>()};
    s.start = j.value("start", 0);
    s.stop = j.value("stop", 0);
    steps->push_back(s);
  } else if (type == "Metaspace") {
    Step s{Step::kMetaspace, j.value("replacement", "\xe2\x96\x81")};
    s.prepend = j.value("prepend_scheme", j.value("add_prefix_space", true) ? "always" : "never") != "never";
    steps->push_back(s);
  } else {
    return Unimplemented("tokenizer.json: decoder '" + type + "' is not supported");
  }
  return Status::Ok();
}

Result<TextDecoder> TextDecoder::FromJson(const nlohmann::json& j) {
  TextDecoder d;
  VT_RETURN_IF_ERROR(Parse(j, &d.steps_));
  return d;
}

std::string TextDecoder::Decode(std::vector<std::string> tokens) const { return Run(std::move(tokens), false); }

std::string TextDecoder::TokenBytes(std::string token) const { return Run({std::move(token)}, true); }

std::string TextDecoder::Run(std::vector<std::string> tokens, bool raw) const {
  for (const Step& s : steps_) {
    switch (s.kind) {
      case Step::kByteLevel: {
        std::string bytes;
        for (const std::string& t : tokens) bytes += ByteLevelToBytes(t);
        tokens = {raw ? bytes : SanitizeUtf8(bytes)};
        break;
      }
      case Step::kReplace:
        for (std::string& t : tokens) t = ReplaceAll(std::move(t), s.a, s.b);
        break;
      case Step::kByteFallback: {
        // Runs of <0xXX> tokens become their bytes when those are valid
        // UTF-8, else one U+FFFD per byte, as HF does.
        std::vector<std::string> out;
        std::string pending;
        size_t pending_count = 0;
        auto flush = [&] {
          if (pending_count == 0) return;
          if (raw || IsValidUtf8(pending)) {
            out.push_back(pending);
          } else {
            for (size_t i = 0; i < pending_count; ++i) out.push_back("\xef\xbf\xbd");
          }
          pending.clear();
          pending_count = 0;
        };
        for (std::string& t : tokens) {
          const int b = ByteToken(t);
          if (b >= 0) {
            pending.push_back(static_cast<char>(b));
            ++pending_count;
          } else {
            flush();
            out.push_back(std::move(t));
          }
        }
        flush();
        tokens = std::move(out);
        break;
      }
      case Step::kFuse: {
        std::string all;
        for (const std::string& t : tokens) all += t;
        tokens = {all};
        break;
      }
      case Step::kStrip:
        if (raw) break;
        for (std::string& t : tokens) {
          for (int i = 0; i < s.start && t.compare(0, s.a.size(), s.a) == 0 && !s.a.empty(); ++i) t.erase(0, s.a.size());
          for (int i = 0; i < s.stop && t.size() >= s.a.size() && !s.a.empty() &&
                          t.compare(t.size() - s.a.size(), s.a.size(), s.a) == 0;
               ++i) {
            t.erase(t.size() - s.a.size());
          }
        }
        break;
      case Step::kMetaspace:
        for (size_t i = 0; i < tokens.size(); ++i) {
          tokens[i] = ReplaceAll(std::move(tokens[i]), s.a, " ");
          if (i == 0 && s.prepend && !raw && !tokens[i].empty() && tokens[i][0] == ' ') tokens[i].erase(0, 1);
        }
        break;
    }
  }
  std::string text;
  for (const std::string& t : tokens) text += t;
  return text;
}

}  // namespace vt
