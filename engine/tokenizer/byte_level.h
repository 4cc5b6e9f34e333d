// GPT-2's byte-level alphabet: each of the 256 bytes is one printable Unicode
// character, so byte-level BPE vocabularies are written in text.
#pragma once

#include <string>
#include <string_view>

namespace vt {

// Maps every byte of `bytes` to its alphabet character (UTF-8 encoded).
std::string BytesToByteLevel(std::string_view bytes);

// The inverse; characters outside the alphabet (added tokens can hold any
// text) pass through as their own UTF-8 bytes, as HF's decoder does.
std::string ByteLevelToBytes(std::string_view text);

}  // namespace vt
