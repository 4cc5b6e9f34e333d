#include "engine/tokenizer/nfc.h"

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "engine/tokenizer/utf8.h"

namespace vt {
namespace {

struct ClassRange {
  char32_t first, last;
  uint8_t ccc;
};
struct Decomposition {
  char32_t cp;
  char32_t parts[4];
  uint8_t count;
};
struct Composition {
  char32_t first, second, composed;
};

constexpr ClassRange kClasses[] = {
#define VT_NFC_COMBINING_CLASSES
#include "engine/tokenizer/nfc_data.inc"
#undef VT_NFC_COMBINING_CLASSES
};
constexpr Decomposition kDecompositions[] = {
#define VT_NFC_DECOMPOSITIONS
#include "engine/tokenizer/nfc_data.inc"
#undef VT_NFC_DECOMPOSITIONS
};
constexpr Composition kCompositions[] = {
#define VT_NFC_COMPOSITIONS
#include "engine/tokenizer/nfc_data.inc"
#undef VT_NFC_COMPOSITIONS
};

// Hangul syllable arithmetic (Unicode, section 3.12).
constexpr char32_t kSBase = 0xAC00, kLBase = 0x1100, kVBase = 0x1161, kTBase = 0x11A7;
constexpr int kLCount = 19, kVCount = 21, kTCount = 28, kNCount = kVCount * kTCount, kSCount = kLCount * kNCount;

uint8_t CombiningClass(char32_t cp) {
  if (cp < 0x300) return 0;
  auto it = std::upper_bound(std::begin(kClasses), std::end(kClasses), cp,
                             [](char32_t c, const ClassRange& r) { return c < r.first; });
  if (it == std::begin(kClasses)) return 0;
  --it;
  return cp <= it->last ? it->ccc : 0;
}

void Decompose(char32_t cp, std::u32string& out) {
  if (cp >= kSBase && cp < kSBase + kSCount) {
    const int s = static_cast<int>(cp - kSBase);
    out.push_back(kLBase + s / kNCount);
    out.push_back(kVBase + (s % kNCount) / kTCount);
    if (s % kTCount != 0) out.push_back(kTBase + s % kTCount);
    return;
  }
  auto it = std::lower_bound(std::begin(kDecompositions), std::end(kDecompositions), cp,
                             [](const Decomposition& d, char32_t c) { return d.cp < c; });
  if (it != std::end(kDecompositions) && it->cp == cp) {
    out.append(it->parts, it->count);
  } else {
    out.push_back(cp);
  }
}

const std::unordered_map<uint64_t, char32_t>& CompositionTable() {
  static const std::unordered_map<uint64_t, char32_t> table = [] {
    std::unordered_map<uint64_t, char32_t> t;
    for (const Composition& c : kCompositions) t[(static_cast<uint64_t>(c.first) << 32) | c.second] = c.composed;
    return t;
  }();
  return table;
}

// The primary composite of (first, second), or 0 when there is none.
char32_t Compose(char32_t first, char32_t second) {
  if (first >= kLBase && first < kLBase + kLCount && second >= kVBase && second < kVBase + kVCount) {
    return kSBase + ((first - kLBase) * kVCount + (second - kVBase)) * kTCount;
  }
  if (first >= kSBase && first < kSBase + kSCount && (first - kSBase) % kTCount == 0 && second > kTBase &&
      second < kTBase + kTCount) {
    return first + (second - kTBase);
  }
  const auto& table = CompositionTable();
  auto it = table.find((static_cast<uint64_t>(first) << 32) | second);
  return it == table.end() ? 0 : it->second;
}

}  // namespace

std::string ComposeNfc(std::string_view text) {
  // Every code point below U+0300 is already in NFC (UTF-8 lead bytes below 0xCC).
  if (std::all_of(text.begin(), text.end(), [](char c) { return static_cast<uint8_t>(c) < 0xCC; })) {
    return std::string(text);
  }
  std::u32string s;
  for (const auto& [cp, offset] : DecodeUtf8(text)) Decompose(cp, s);

  // Canonical ordering: a stable sort of each run of non-starters by combining class.
  for (size_t i = 0; i < s.size();) {
    if (CombiningClass(s[i]) == 0) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < s.size() && CombiningClass(s[end]) != 0) ++end;
    std::stable_sort(s.begin() + i, s.begin() + end,
                     [](char32_t a, char32_t b) { return CombiningClass(a) < CombiningClass(b); });
    i = end;
  }

  // Canonical composition: each character joins the last starter unless a character between
  // them blocks it (a starter, or a mark of the same or a higher class).
  std::u32string out;
  size_t starter = std::u32string::npos;
  int last_class = -1;
  for (char32_t cp : s) {
    const int cls = CombiningClass(cp);
    if (starter != std::u32string::npos && (last_class < cls || last_class == 0)) {
      const char32_t composed = Compose(out[starter], cp);
      if (composed != 0) {
        out[starter] = composed;
        continue;
      }
    }
    if (cls == 0) starter = out.size();
    last_class = cls;
    out.push_back(cp);
  }
  std::string result;
  for (char32_t cp : out) AppendUtf8(cp, &result);
  return result;
}

}  // namespace vt
