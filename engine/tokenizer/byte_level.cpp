#include "engine/tokenizer/byte_level.h"

#include <array>
#include <unordered_map>

#include "engine/tokenizer/utf8.h"

namespace vt {

namespace {

struct Alphabet {
  std::array<std::string, 256> byte_to_text;
  std::unordered_map<char32_t, uint8_t> char_to_byte;

  Alphabet() {
    // Printable bytes map to themselves; the rest to 256 + n, in byte order.
    int next = 0;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
      const char32_t cp = printable ? static_cast<char32_t>(b) : static_cast<char32_t>(256 + next++);
      AppendUtf8(cp, &byte_to_text[b]);
      char_to_byte[cp] = static_cast<uint8_t>(b);
    }
  }
};

const Alphabet& GetAlphabet() {
  static const Alphabet alphabet;
  return alphabet;
}

}  // namespace

std::string BytesToByteLevel(std::string_view bytes) {
  const Alphabet& a = GetAlphabet();
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char c : bytes) out += a.byte_to_text[static_cast<uint8_t>(c)];
  return out;
}

std::string ByteLevelToBytes(std::string_view text) {
  const Alphabet& a = GetAlphabet();
  std::string out;
  for (const auto& [cp, offset] : DecodeUtf8(text)) {
    auto it = a.char_to_byte.find(cp);
    if (it != a.char_to_byte.end()) {
      out.push_back(static_cast<char>(it->second));
    } else {
      AppendUtf8(cp, &out);
    }
  }
  return out;
}

}  // namespace vt
