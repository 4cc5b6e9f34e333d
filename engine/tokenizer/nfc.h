// Unicode NFC, the normalizer of Qwen's and other byte-level tokenizer.json files: canonical
// decomposition, canonical ordering of combining marks, then canonical composition (with
// Hangul syllables by the standard's algorithm). Tables come from engine/tokenizer/gen_nfc_table.py.
// Text whose code points are all below U+0300 - most text - is returned unchanged at once.
#pragma once

#include <string>
#include <string_view>

namespace vt {

std::string ComposeNfc(std::string_view utf8);

}  // namespace vt
