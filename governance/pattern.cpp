#include "governance/pattern.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

namespace vt::gate {

struct Pattern::Code {
  pcre2_code* code = nullptr;
  ~Code() { pcre2_code_free(code); }
};

Result<Pattern> Pattern::Compile(const std::string& source, bool caseless) {
  int error = 0;
  PCRE2_SIZE offset = 0;
  uint32_t options = caseless ? PCRE2_CASELESS : 0;
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(source.data()), source.size(), options,
                                   &error, &offset, nullptr);
  if (code == nullptr) {
    PCRE2_UCHAR text[256];
    pcre2_get_error_message(error, text, sizeof(text));
    return InvalidArgument("invalid pattern '" + source + "' at offset " + std::to_string(offset) + ": " +
                           reinterpret_cast<const char*>(text));
  }
  pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);  // best effort: falls back to the interpreter
  Pattern pattern;
  auto holder = std::make_shared<Code>();
  holder->code = code;
  pattern.code_ = std::move(holder);
  pattern.source_ = source;
  return pattern;
}

bool Pattern::Search(std::string_view text) const {
  if (!code_) return false;
  pcre2_match_data* data = pcre2_match_data_create_from_pattern(code_->code, nullptr);
  if (data == nullptr) return false;
  int rc =
      pcre2_match(code_->code, reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), 0, 0, data, nullptr);
  pcre2_match_data_free(data);
  return rc >= 0;
}

}  // namespace vt::gate
