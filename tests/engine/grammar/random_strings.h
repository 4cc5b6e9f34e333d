// Strings to hold a grammar against an oracle with: code points drawn near the ends of a
// character set's ranges, an alphabet of characters grammars treat specially (quotes, braces,
// controls, multi-byte UTF-8, NUL), and one-character mutations of a string.
#pragma once

#include <random>
#include <string>
#include <vector>

#include "engine/grammar/grammar.h"
#include "engine/tokenizer/utf8.h"

namespace vt::grammar {

// A code point of `ranges`, most often near an end of one of them (where off-by-ones hide).
inline uint32_t Pick(const std::vector<CharRange>& ranges, std::mt19937& rng) {
  const CharRange& r = ranges[rng() % ranges.size()];
  const uint32_t span = r.hi - r.lo;
  switch (rng() % 4) {
    case 0: return r.lo;
    case 1: return r.hi;
    default: return r.lo + uint32_t(rng() % (uint64_t(span) + 1));
  }
}

inline const std::vector<std::string> kAlphabet = {"a", "b", "c", "x", "z", "A", "Z", "0", "5", "9", "_", "-", " ", "\t",
                                            "\n", ".", "{", "}", "\"", ":", ",", "@", "\xc3\xa9", "\xe2\x82\xac",
                                            "\xf0\x9f\x98\x80", "\x7f", std::string(1, '\0')};

inline std::string Mutate(std::string s, std::mt19937& rng) {
  std::vector<std::pair<char32_t, size_t>> cps = DecodeUtf8(s);
  const size_t at = cps.empty() ? 0 : rng() % (cps.size() + 1);
  const size_t byte = at < cps.size() ? cps[at].second : s.size();
  const std::string& c = kAlphabet[rng() % kAlphabet.size()];
  const size_t next = at + 1 < cps.size() ? cps[at + 1].second : s.size();
  switch (rng() % 3) {
    case 0: return s.insert(byte, c);
    case 1: return at < cps.size() ? s.erase(byte, next - byte) : s;
    default: return at < cps.size() ? s.replace(byte, next - byte, c) : s + c;
  }
}

// Up to `max_length` characters of the alphabet.
inline std::string RandomString(std::mt19937& rng, size_t max_length) {
  std::string s;
  for (size_t n = rng() % (max_length + 1); n > 0; --n) s += kAlphabet[rng() % kAlphabet.size()];
  return s;
}

}  // namespace vt::grammar
