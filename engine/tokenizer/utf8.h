// UTF-8 helpers shared by the tokenizer and the detokenizer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vt {

// Replaces each ill-formed subsequence with U+FFFD, one per maximal subpart
// (the Unicode recommendation that Python's errors="replace" and Rust's
// from_utf8_lossy both follow), so vt and the HF reference see the same text.
std::string SanitizeUtf8(std::string_view bytes);

// Length of the longest prefix of `bytes` that ends on a character boundary,
// treating a trailing sequence that could still become valid as incomplete.
// Ill-formed bytes count as complete (they will be replaced, not completed).
size_t CompleteUtf8Prefix(std::string_view bytes);

// Code points of valid UTF-8 text, with the byte offset each starts at.
std::vector<std::pair<char32_t, size_t>> DecodeUtf8(std::string_view text);

void AppendUtf8(char32_t cp, std::string* out);

}  // namespace vt
