#include "engine/tokenizer/nfc.h"

#include <unordered_map>

#include "engine/tokenizer/utf8.h"

namespace vt {

namespace {

struct Composition {
  char32_t base, mark, composed;
};

constexpr Composition kPairs[] = {
#include "engine/tokenizer/nfc_pairs.inc"
};

const std::unordered_map<uint64_t, char32_t>& Table() {
  static const std::unordered_map<uint64_t, char32_t> table = [] {
    std::unordered_map<uint64_t, char32_t> t;
    for (const Composition& c : kPairs) t[(static_cast<uint64_t>(c.base) << 32) | c.mark] = c.composed;
    return t;
  }();
  return table;
}

}  // namespace

std::string ComposeNfc(std::string_view text) {
  bool has_mark = false;
  for (size_t i = 0; i + 1 < text.size(); ++i) {
    // U+0300..U+036F are 0xCC 0x80 .. 0xCD 0xAF in UTF-8.
    const auto c = static_cast<uint8_t>(text[i]);
    if (c == 0xcc || c == 0xcd) has_mark = true;
  }
  if (!has_mark) return std::string(text);
  const auto& table = Table();
  std::u32string out;
  for (const auto& [cp, offset] : DecodeUtf8(text)) {
    if (!out.empty() && cp >= 0x300 && cp < 0x370) {
      auto it = table.find((static_cast<uint64_t>(out.back()) << 32) | cp);
      if (it != table.end()) {
        out.back() = it->second;
        continue;
      }
    }
    out.push_back(cp);
  }
  std::string s;
  for (char32_t cp : out) AppendUtf8(cp, &s);
  return s;
}

}  // namespace vt
