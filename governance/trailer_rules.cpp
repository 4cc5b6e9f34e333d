#include "governance/trailer_rules.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace vt::gate {

bool EqualsNoCase(std::string_view a, std::string_view b) {
  auto lower = [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; };
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

namespace {

bool IsWordChar(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}

// `token` occurs in `text` as a whole word, case-insensitively.
bool ContainsWord(std::string_view text, std::string_view token) {
  if (token.empty() || token.size() > text.size()) return false;
  for (size_t i = 0; i + token.size() <= text.size(); ++i) {
    if (!EqualsNoCase(text.substr(i, token.size()), token)) continue;
    bool left = i == 0 || !IsWordChar(text[i - 1]);
    bool right = i + token.size() == text.size() || !IsWordChar(text[i + token.size()]);
    if (left && right) return true;
  }
  return false;
}

std::string_view TrimRight(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

bool IsBlank(std::string_view line) {
  return TrimRight(line).find_first_not_of(" \t") == std::string_view::npos;
}

// 1-based line of the first byte that is not valid UTF-8, or 0. Runs of
// ASCII, nearly every message, are skipped eight bytes at a time; lines are
// counted only for the answer.
int FirstInvalidUtf8Line(std::string_view text) {
  auto line_of = [&](size_t at) { return 1 + static_cast<int>(std::count(text.begin(), text.begin() + at, '\n')); };
  for (size_t i = 0; i < text.size();) {
    if (i + 8 <= text.size()) {
      uint64_t word;
      std::memcpy(&word, text.data() + i, sizeof(word));
      if ((word & 0x8080808080808080ULL) == 0) {
        i += 8;
        continue;
      }
    }
    unsigned char c = static_cast<unsigned char>(text[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (len == 0 || i + len > text.size()) return line_of(i);
    for (size_t k = 1; k < len; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return line_of(i);
    }
    i += len;
  }
  return 0;
}

// The trailers with `key`, in order, without collecting them: this runs for
// every rule on every commit of a range.
template <typename Visit>
void ForEachWithKey(const TrailerBlock& block, std::string_view key, Visit visit) {
  for (const Trailer& t : block.trailers) {
    if (EqualsNoCase(t.key, key)) visit(t);
  }
}

bool ConditionHolds(const TrailerRequirement& req, const TrailerBlock& block) {
  for (const auto& [key, value] : req.when) {
    bool any = std::any_of(block.trailers.begin(), block.trailers.end(),
                           [&](const Trailer& t) { return EqualsNoCase(t.key, key) && t.value == value; });
    if (!any) return false;
  }
  return true;
}

std::string DescribeCondition(const TrailerRequirement& req) {
  std::string out;
  for (const auto& [key, value] : req.when) out += (out.empty() ? "" : ", ") + key + ": " + value;
  return out;
}

void CheckRequired(const TrailerRequirement& req, const std::vector<std::string>& record_ids,
                   const TrailerBlock& block, std::vector<RuleFinding>& out) {
  if (!ConditionHolds(req, block)) return;
  int n = 0;
  ForEachWithKey(block, req.key, [&](const Trailer&) { ++n; });
  if (!req.count.Allows(n)) {
    RuleFinding f{"required:" + req.key, block.found ? block.last_line : 0, ""};
    f.message = "expected " + req.count.Describe() + " `" + req.key + ":` trailer" +
                (req.count.max == 1 ? "" : "s") + ", found " + std::to_string(n);
    if (!req.when.empty()) f.message += " (required because " + DescribeCondition(req) + ")";
    if (!block.found) f.message += " (the message has no trailer block; see rule trailer-block)";
    out.push_back(std::move(f));
  }
  ForEachWithKey(block, req.key, [&](const Trailer& trailer) {
    const Trailer* t = &trailer;
    if (req.in_record) {
      bool listed = std::find(req.values.begin(), req.values.end(), t->value) != req.values.end();
      if (!listed && !std::binary_search(record_ids.begin(), record_ids.end(), t->value)) {
        std::string also;
        for (const std::string& v : req.values) also += (also.empty() ? " or " : "|") + v;
        out.push_back({"record:" + req.key, t->line,
                       "`" + req.key + ": " + t->value.substr(0, 80) + "` names no row of the record (" +
                           std::to_string(record_ids.size()) + " rows)" +
                           (also.empty() ? "" : "; use a row id" + also)});
      }
      if (!req.pattern) return;
    }
    bool ok = true;
    if (req.pattern) {
      ok = req.pattern->Search(t->value);
    } else if (!req.values.empty()) {
      ok = std::find(req.values.begin(), req.values.end(), t->value) != req.values.end();
    }
    if (ok) return;
    std::string expected;
    if (req.pattern) {
      expected = "to match /" + req.pattern->source() + "/";
    } else {
      for (const std::string& v : req.values) expected += (expected.empty() ? "one of " : "|") + v;
    }
    out.push_back({"value:" + req.key, t->line,
                   "`" + req.key + ": " + t->value.substr(0, 80) + "` — expected the value " + expected});
  });
}

std::string_view EmailOf(std::string_view value) {
  size_t open = value.rfind('<');
  size_t close = value.rfind('>');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return {};
  return value.substr(open + 1, close - open - 1);
}

void CheckIdentity(const IdentityBan& ban, const TrailerBlock& block, std::vector<RuleFinding>& out) {
  for (const std::string& key : ban.keys) {
    ForEachWithKey(block, key, [&](const Trailer& trailer) {
      const Trailer* t = &trailer;
      std::string_view email = EmailOf(t->value);
      bool exempt =
          !email.empty() && std::any_of(ban.allowed_emails.begin(), ban.allowed_emails.end(),
                                        [&](const std::string& e) { return EqualsNoCase(e, email); });
      if (exempt) return;
      for (const std::string& token : ban.tokens) {
        if (ContainsWord(t->value, token)) {
          out.push_back({"identity:" + key, t->line,
                         "`" + key + "` names `" + token +
                             "`: no AI identity in attribution trailers (use Assisted-by)"});
          break;
        }
      }
    });
  }
}

void CheckMarker(const MarkerRule& marker, const std::vector<std::string_view>& lines,
                 const TrailerBlock& block, std::vector<RuleFinding>& out) {
  int anywhere = 0;
  int own_paragraph = 0;
  int first_misplaced = 0;
  // The body ends where the trailer block starts; the title is line 1.
  int body_end = block.found ? block.first_line : static_cast<int>(lines.size()) + 1;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view trimmed = TrimRight(lines[i]);
    size_t lead = trimmed.find_first_not_of(" \t");
    if (lead == std::string_view::npos || trimmed.substr(lead) != marker.token) continue;
    ++anywhere;
    int line = static_cast<int>(i) + 1;
    bool blank_before = i > 0 && IsBlank(lines[i - 1]);
    bool blank_after = i + 1 == lines.size() || IsBlank(lines[i + 1]);
    if (line > 1 && line < body_end && blank_before && blank_after) {
      ++own_paragraph;
    } else if (!first_misplaced) {
      first_misplaced = line;
    }
  }
  int n = marker.placement == MarkerPlacement::kAnywhere ? anywhere : own_paragraph;
  if (marker.count.Allows(n)) return;
  RuleFinding f{"marker", first_misplaced, ""};
  f.message =
      "expected " + marker.count.Describe() + " `" + marker.token + "` marker line" +
      (marker.placement == MarkerPlacement::kOwnParagraph ? " in its own paragraph before the trailer block"
                                                          : "") +
      ", found " + std::to_string(n);
  if (marker.placement == MarkerPlacement::kOwnParagraph && first_misplaced) {
    f.message += " (the one at line " + std::to_string(first_misplaced) +
                 " is not its own paragraph before the trailers)";
  }
  out.push_back(std::move(f));
}

bool StartsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

}  // namespace

MessageVerdict CheckMessage(const TrailerConfig& config, const TrailerSyntax& syntax,
                            const MessageFacts& facts) {
  MessageVerdict verdict;
  std::string_view message = facts.message;
  std::string_view subject = message.substr(0, message.find('\n'));

  if (facts.parent_count > 1 && config.merges == MergePolicy::kSkip) {
    verdict.disposition = CommitDisposition::kSkippedMerge;
    return verdict;
  }
  if (facts.parent_count > 1 && config.merges == MergePolicy::kFail) {
    verdict.findings.push_back({"merge", 0,
                                "a merge commit (" + std::to_string(facts.parent_count) +
                                    " parents): merges must not land here (merges: fail); rebase instead"});
    return verdict;
  }
  if (config.bot_authors && !facts.author.empty() && config.bot_authors->Search(facts.author)) {
    verdict.disposition = CommitDisposition::kSkippedBot;
    return verdict;
  }
  bool fixup =
      StartsWith(subject, "fixup!") || StartsWith(subject, "squash!") || StartsWith(subject, "amend!");
  if (fixup) {
    if (config.fixups == FixupPolicy::kSkip) {
      verdict.disposition = CommitDisposition::kSkippedFixup;
      return verdict;
    }
    std::string message(1, '`');
    message.append(subject.substr(0, subject.find('!') + 1));
    message += "` commits must be squashed before they land";
    verdict.findings.push_back({"fixup", 1, std::move(message)});
  }
  if (config.reverts == RevertPolicy::kSkip && StartsWith(subject, "Revert \"")) {
    verdict.disposition = CommitDisposition::kSkippedRevert;
    return verdict;
  }
  if (message.find('\0') != std::string_view::npos) {
    verdict.findings.push_back({"encoding", 0, "the message contains NUL bytes (binary data)"});
    return verdict;
  }
  if (facts.check_encoding) {
    if (int line = FirstInvalidUtf8Line(message)) {
      verdict.findings.push_back({"encoding", line, "the message is not valid UTF-8"});
    }
  }

  TrailerBlock block = ParseTrailers(message, syntax);
  // One explanation of a missing block, rather than one per required key.
  bool requires_something =
      std::any_of(config.required.begin(), config.required.end(),
                  [&](const TrailerRequirement& r) { return r.count.min > 0 && ConditionHolds(r, block); });
  if (!block.found && requires_something) {
    MissingBlockDiagnosis diagnosis = DiagnoseMissingTrailerBlock(message, syntax);
    verdict.findings.push_back({"trailer-block", diagnosis.line, "no trailer block: " + diagnosis.reason});
  }
  for (const TrailerRequirement& req : config.required)
    CheckRequired(req, config.record_ids, block, verdict.findings);
  for (const ForbiddenTrailer& forbidden : config.forbidden) {
    ForEachWithKey(block, forbidden.key, [&](const Trailer& t) {
      verdict.findings.push_back({"forbidden:" + forbidden.key, t.line,
                                  "`" + forbidden.key + ":` is not allowed" +
                                      (forbidden.reason.empty() ? "" : " (" + forbidden.reason + ")")});
    });
  }
  if (config.identity) CheckIdentity(*config.identity, block, verdict.findings);
  if (config.marker) CheckMarker(*config.marker, SplitLines(message), block, verdict.findings);
  return verdict;
}

std::vector<std::string> RecordIdsNamed(const TrailerConfig& config, const TrailerBlock& block) {
  std::vector<std::string> ids;
  for (const TrailerRequirement& req : config.required) {
    if (!req.in_record || !ConditionHolds(req, block)) continue;
    ForEachWithKey(block, req.key, [&](const Trailer& t) {
      if (std::find(req.values.begin(), req.values.end(), t.value) == req.values.end()) ids.push_back(t.value);
    });
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

}  // namespace vt::gate
