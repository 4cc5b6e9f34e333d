#include "engine/tokenizer/utf8.h"

namespace vt {

namespace {

// Length of the valid sequence at s[i], or 0 when s[i] starts an ill-formed
// one; *maximal is then set to the length of its maximal subpart (≥ 1).
// *truncated says the sequence is a valid prefix cut off by the end.
size_t ValidSequence(std::string_view s, size_t i, size_t* maximal, bool* truncated) {
  const auto b = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
  const uint8_t c = b(i);
  *truncated = false;
  *maximal = 1;
  if (c < 0x80) return 1;
  size_t need;
  uint8_t lo = 0x80, hi = 0xbf;
  if (c >= 0xc2 && c <= 0xdf) {
    need = 1;
  } else if (c >= 0xe0 && c <= 0xef) {
    need = 2;
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    need = 3;
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f;
  } else {
    return 0;
  }
  for (size_t k = 1; k <= need; ++k) {
    if (i + k >= s.size()) {
      *truncated = true;
      *maximal = k;
      return 0;
    }
    const uint8_t t = b(i + k);
    const uint8_t l = k == 1 ? lo : 0x80, h = k == 1 ? hi : 0xbf;
    if (t < l || t > h) {
      *maximal = k;
      return 0;
    }
  }
  return need + 1;
}

}  // namespace

std::string SanitizeUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    size_t maximal;
    bool truncated;
    const size_t n = ValidSequence(s, i, &maximal, &truncated);
    if (n > 0) {
      out.append(s.substr(i, n));
      i += n;
    } else {
      out.append("\xef\xbf\xbd");
      i += maximal;
    }
  }
  return out;
}

size_t CompleteUtf8Prefix(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    size_t maximal;
    bool truncated;
    const size_t n = ValidSequence(s, i, &maximal, &truncated);
    if (truncated) return i;
    i += n > 0 ? n : maximal;
  }
  return s.size();
}

std::vector<std::pair<char32_t, size_t>> DecodeUtf8(std::string_view s) {
  std::vector<std::pair<char32_t, size_t>> out;
  for (size_t i = 0; i < s.size();) {
    const uint8_t c = static_cast<uint8_t>(s[i]);
    size_t n = c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
    if (i + n > s.size()) n = s.size() - i;
    char32_t cp = n == 1 ? c : n == 2 ? (c & 0x1f) : n == 3 ? (c & 0x0f) : (c & 0x07);
    for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<uint8_t>(s[i + k]) & 0x3f);
    out.emplace_back(cp, i);
    i += n;
  }
  return out;
}

void AppendUtf8(char32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xc0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xe0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else {
    out->push_back(static_cast<char>(0xf0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  }
}

}  // namespace vt
