// The NFC normalizer of Qwen's tokenizer.json, as far as real text needs it:
// canonical composition of Latin, Greek and Cyrillic letters with combining
// diacritics (e + U+0301 → é). Text already in NFC — nearly all text — is
// returned unchanged. Not covered: Hangul jamo composition, canonical
// reordering of mark sequences, and other scripts' compositions.
#pragma once

#include <string>
#include <string_view>

namespace vt {

std::string ComposeNfc(std::string_view utf8);

}  // namespace vt
