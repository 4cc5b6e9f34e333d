#include "governance/pattern.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <atomic>
#include <mutex>

namespace vt::gate {

// Searches run on the interpreter first: the commit-msg hook checks one
// message, and JIT-compiling its few patterns (executable pages mapped and
// protected) cost more than the searches. A pattern that keeps being used
// (a range of commits) gets a JIT-compiled copy; the interpreted code is never
// modified, so a search on another thread never sees it half compiled.
constexpr int kSearchesBeforeJit = 32;

struct Pattern::Code {
  pcre2_code* code = nullptr;
  std::atomic<int> searches{0};
  std::once_flag jit_once;
  std::atomic<pcre2_code*> jit{nullptr};
  ~Code() {
    pcre2_code_free(jit.load());
    pcre2_code_free(code);
  }
  const pcre2_code* ForSearch() {
    if (searches.fetch_add(1, std::memory_order_relaxed) == kSearchesBeforeJit) {
      std::call_once(jit_once, [this] {
        pcre2_code* copy = pcre2_code_copy(code);
        // Best effort: without JIT the interpreter goes on.
        if (copy && pcre2_jit_compile(copy, PCRE2_JIT_COMPLETE) == 0) {
          jit.store(copy, std::memory_order_release);
        } else {
          pcre2_code_free(copy);
        }
      });
    }
    const pcre2_code* compiled = jit.load(std::memory_order_acquire);
    return compiled ? compiled : code;
  }
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
  Pattern pattern;
  auto holder = std::make_shared<Code>();
  holder->code = code;
  pattern.code_ = std::move(holder);
  pattern.source_ = source;
  return pattern;
}

namespace {

// One match block per thread, kept: a fresh one per search allocated and freed
// PCRE2's 20 KiB of backtracking frames three times per commit of a range.
// Searches only ask whether a pattern matches, so one ovector pair does.
struct MatchData {
  pcre2_match_data* data = pcre2_match_data_create(1, nullptr);
  ~MatchData() { pcre2_match_data_free(data); }
};

}  // namespace

bool Pattern::Search(std::string_view text) const {
  if (!code_) return false;
  thread_local MatchData match;
  if (match.data == nullptr) return false;
  const pcre2_code* code = code_->ForSearch();
  // A match that does not fit the ovector returns 0: still a match.
  return pcre2_match(code, reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), 0, 0, match.data, nullptr) >= 0;
}

}  // namespace vt::gate
