#include "engine/tokenizer/regex_splitter.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

namespace vt {

struct RegexSplitter::Impl {
  pcre2_code* code = nullptr;
  ~Impl() {
    if (code != nullptr) pcre2_code_free(code);
  }
};

Result<std::shared_ptr<RegexSplitter>> RegexSplitter::Compile(const std::string& pattern) {
  int error = 0;
  PCRE2_SIZE offset = 0;
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                   PCRE2_UTF | PCRE2_UCP | PCRE2_NO_UTF_CHECK, &error, &offset, nullptr);
  if (code == nullptr) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(error, message, sizeof message);
    return InvalidArgument("tokenizer.json: pre-tokenizer regex does not compile at offset " + std::to_string(offset) +
                           ": " + reinterpret_cast<const char*>(message));
  }
  // JIT makes matching several times faster; without it PCRE2 still works.
  pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);
  std::shared_ptr<RegexSplitter> s(new RegexSplitter());
  s->impl_ = std::make_unique<Impl>();
  s->impl_->code = code;
  return s;
}

RegexSplitter::~RegexSplitter() = default;

std::vector<std::string_view> RegexSplitter::Split(std::string_view text) const {
  std::vector<std::string_view> pieces;
  pcre2_match_data* match = pcre2_match_data_create_from_pattern(impl_->code, nullptr);
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  size_t pos = 0;
  size_t last_end = 0;
  while (pos <= text.size()) {
    const int rc = pcre2_match(impl_->code, subject, text.size(), pos, PCRE2_NO_UTF_CHECK, match, nullptr);
    if (rc < 0) break;
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(match);
    const size_t begin = ov[0], end = ov[1];
    if (begin > last_end) pieces.push_back(text.substr(last_end, begin - last_end));
    if (end > begin) pieces.push_back(text.substr(begin, end - begin));
    last_end = end;
    if (end == begin) {
      // An empty match: step one whole character so the next search starts on a boundary.
      if (end >= text.size()) break;
      size_t next = end + 1;
      while (next < text.size() && (static_cast<uint8_t>(text[next]) & 0xc0) == 0x80) ++next;
      pos = next;
    } else {
      pos = end;
    }
  }
  if (last_end < text.size()) pieces.push_back(text.substr(last_end));
  pcre2_match_data_free(match);
  return pieces;
}

}  // namespace vt
