#include "governance/trailer_parser.h"

#include <algorithm>

namespace vt::gate {
namespace {

// git's ctype: isspace is exactly these four; non-ASCII bytes are never alnum.
bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool IsAlnum(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

using Pos = std::ptrdiff_t;

Pos NextLine(std::string_view buf, Pos pos) {
  size_t nl = buf.find('\n', static_cast<size_t>(pos));
  return nl == std::string_view::npos ? static_cast<Pos>(buf.size()) : static_cast<Pos>(nl + 1);
}

bool IsBlankLine(std::string_view buf, Pos pos) {
  Pos n = static_cast<Pos>(buf.size());
  while (pos < n && buf[pos] != '\n' && IsSpace(buf[pos])) ++pos;
  return pos == n || buf[pos] == '\n';
}

// Start of the last line within buf[0, len): a trailing newline belongs to
// the last line. -1 when len is 0.
Pos LastLine(std::string_view buf, Pos len) {
  if (len == 0) return -1;
  if (len == 1) return 0;
  for (Pos i = len - 2; i >= 0; --i) {
    if (buf[i] == '\n') return i + 1;
  }
  return 0;
}

// Offset of the separator in the line at `pos`, or -1: the token is
// alphanumerics and '-', optionally followed by blanks before the separator.
Pos FindSeparator(std::string_view buf, Pos pos, std::string_view separators) {
  bool whitespace_found = false;
  Pos n = static_cast<Pos>(buf.size());
  for (Pos c = pos; c < n && buf[c] != '\0'; ++c) {
    if (separators.find(buf[c]) != std::string_view::npos) return c - pos;
    if (!whitespace_found && (IsAlnum(buf[c]) || buf[c] == '-')) continue;
    if (c != pos && (buf[c] == ' ' || buf[c] == '\t')) {
      whitespace_found = true;
      continue;
    }
    break;
  }
  return -1;
}

bool StartsWith(std::string_view buf, Pos pos, std::string_view prefix) {
  return buf.substr(static_cast<size_t>(pos)).substr(0, prefix.size()) == prefix;
}

// A `---` line followed by whitespace starts a patch; the message ends there.
Pos FindPatchStart(std::string_view buf) {
  Pos n = static_cast<Pos>(buf.size());
  Pos s = 0;
  for (; s < n; s = NextLine(buf, s)) {
    if (StartsWith(buf, s, "---") && s + 3 < n && IsSpace(buf[s + 3])) return s;
  }
  return s;
}

// wt_status_locate_end: a scissors line cuts the message.
Pos LocateScissors(std::string_view buf, Pos len, char comment_char) {
  std::string pattern = "\n";
  pattern += comment_char;
  pattern += " ------------------------ >8 ------------------------\n";
  if (StartsWith(buf, 0, std::string_view(pattern).substr(1))) return 0;
  size_t found = buf.find(pattern);
  if (found == std::string_view::npos) return len;
  return std::min<Pos>(len, static_cast<Pos>(found) + 1);
}

// ignore_non_trailer: trailing comment lines, blank lines and an old-style
// "Conflicts:" block are not part of the message body.
Pos FindTrailerEnd(std::string_view buf, Pos len, char comment_char) {
  Pos boc = 0;
  Pos bol = 0;
  bool in_old_conflicts_block = false;
  Pos cutoff = LocateScissors(buf, len, comment_char);
  while (bol < cutoff) {
    Pos next = NextLine(buf, bol);
    if (next > len) next = len;
    if (buf[bol] == comment_char || buf[bol] == '\n') {
      if (!boc) boc = bol;
    } else if (StartsWith(buf, bol, "Conflicts:\n")) {
      in_old_conflicts_block = true;
      if (!boc) boc = bol;
    } else if (in_old_conflicts_block && buf[bol] == '\t') {
      // a pathname in the conflicts block
    } else if (boc) {
      boc = 0;
      in_old_conflicts_block = false;
    }
    bol = next;
  }
  return boc ? boc : cutoff;
}

constexpr std::string_view kGitGeneratedPrefixes[] = {"Signed-off-by: ", "(cherry picked from commit "};

bool IsGitGenerated(std::string_view buf, Pos pos) {
  for (std::string_view prefix : kGitGeneratedPrefixes) {
    if (StartsWith(buf, pos, prefix)) return true;
  }
  return false;
}

// git's token_matches_item: the first `len` bytes of the line match a
// configured name or key case-insensitively, i.e. the token (with any blanks
// before the separator) is a prefix of it.
bool PrefixMatchesNoCase(std::string_view line_token, std::string_view name) {
  if (line_token.size() > name.size()) return false;
  for (size_t i = 0; i < line_token.size(); ++i) {
    if (Lower(line_token[i]) != Lower(name[i])) return false;
  }
  return true;
}

const ConfiguredTrailer* MatchConfigured(std::string_view token, const TrailerSyntax& syntax) {
  for (const ConfiguredTrailer& item : syntax.configured) {
    if (PrefixMatchesNoCase(token, item.name)) return &item;
    if (!item.key.empty() && PrefixMatchesNoCase(token, item.key)) return &item;
  }
  return nullptr;
}

// A configured key may carry its separator (`trailer.sign.key "Signed-off-by: "`);
// rules name the key without it.
std::string KeyOf(const ConfiguredTrailer& item, const TrailerSyntax& syntax) {
  std::string_view key = item.key;
  while (!key.empty() && (IsSpace(key.back()) || syntax.separators.find(key.back()) != std::string::npos))
    key.remove_suffix(1);
  return std::string(key);
}

Pos FindEndOfTitle(std::string_view buf, Pos len, char comment_char) {
  Pos s = 0;
  for (; s < len; s = NextLine(buf, s)) {
    if (buf[s] == comment_char) continue;
    if (IsBlankLine(buf, s)) break;
  }
  return std::min(s, len);
}

// find_trailer_start: walks the last paragraph bottom-up; returns its start
// when it qualifies as a trailer block, else `len`.
Pos FindTrailerStart(std::string_view buf, Pos len, const TrailerSyntax& syntax) {
  bool only_spaces = true;
  bool recognized_prefix = false;
  int trailer_lines = 0;
  int non_trailer_lines = 0;
  // Indented lines count as continuations of a trailer below them, or as
  // non-trailers once a non-trailer line shows they continue nothing.
  int possible_continuation_lines = 0;
  Pos end_of_title = FindEndOfTitle(buf, len, syntax.comment_char);

  for (Pos l = LastLine(buf, len); l >= end_of_title; l = LastLine(buf, l)) {
    if (buf[l] == syntax.comment_char) {
      non_trailer_lines += possible_continuation_lines;
      possible_continuation_lines = 0;
      continue;
    }
    if (IsBlankLine(buf, l)) {
      if (only_spaces) continue;
      non_trailer_lines += possible_continuation_lines;
      if (recognized_prefix && trailer_lines * 3 >= non_trailer_lines) return NextLine(buf, l);
      if (trailer_lines && !non_trailer_lines) return NextLine(buf, l);
      return len;
    }
    only_spaces = false;
    if (IsGitGenerated(buf, l)) {
      ++trailer_lines;
      possible_continuation_lines = 0;
      recognized_prefix = true;
      continue;
    }
    Pos separator = FindSeparator(buf, l, syntax.separators);
    if (separator >= 1 && !IsSpace(buf[l])) {
      ++trailer_lines;
      possible_continuation_lines = 0;
      if (recognized_prefix) continue;
      if (MatchConfigured(buf.substr(static_cast<size_t>(l), static_cast<size_t>(separator)), syntax)) {
        recognized_prefix = true;
      }
    } else if (IsSpace(buf[l])) {
      ++possible_continuation_lines;
    } else {
      ++non_trailer_lines;
      non_trailer_lines += possible_continuation_lines;
      possible_continuation_lines = 0;
    }
  }
  return len;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

// unfold_value: a newline and the indentation after it become one space.
std::string Unfold(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (size_t i = 0; i < value.size();) {
    char c = value[i++];
    if (c == '\n') {
      while (i < value.size() && IsSpace(value[i])) ++i;
      out += ' ';
    } else {
      out += c;
    }
  }
  return std::string(Trim(out));
}

int LineNumberAt(std::string_view buf, Pos pos) {
  return 1 + static_cast<int>(std::count(buf.begin(), buf.begin() + pos, '\n'));
}

struct Bounds {
  Pos title_end = 0;
  Pos end = 0;    // end of the message body (before divider, comments, scissors)
  Pos start = 0;  // start of the trailer block, == end when none
};

Bounds Locate(std::string_view buf, const TrailerSyntax& syntax) {
  // Like git, a NUL ends the message.
  buf = buf.substr(0, buf.find('\0'));
  Bounds b;
  Pos patch_start = FindPatchStart(buf);
  b.end = FindTrailerEnd(buf, patch_start, syntax.comment_char);
  b.start = FindTrailerStart(buf, b.end, syntax);
  b.title_end = FindEndOfTitle(buf, b.end, syntax.comment_char);
  return b;
}

std::string Quote(std::string_view line) {
  constexpr size_t kMax = 60;
  std::string out;
  out.reserve(kMax + 5);
  out += '`';
  out.append(line.substr(0, kMax));
  if (line.size() > kMax) out += "...";
  out += '`';
  return out;
}

}  // namespace

TrailerBlock ParseTrailers(std::string_view message, const TrailerSyntax& syntax) {
  message = message.substr(0, message.find('\0'));
  Bounds b = Locate(message, syntax);
  TrailerBlock block;
  if (b.start >= b.end) return block;
  block.found = true;
  block.first_line = LineNumberAt(message, b.start);
  block.last_line = LineNumberAt(message, b.end - 1);

  // Split into logical lines: an indented line continues the previous one
  // when that one has a separator.
  struct Logical {
    Pos begin;
    std::string text;
    int line;
    bool continuable;
  };
  std::vector<Logical> lines;
  int line_number = block.first_line;
  for (Pos l = b.start; l < b.end; ++line_number) {
    Pos next = std::min(NextLine(message, l), b.end);
    std::string_view text = message.substr(static_cast<size_t>(l), static_cast<size_t>(next - l));
    if (!lines.empty() && lines.back().continuable && IsSpace(text[0])) {
      lines.back().text += text;
    } else {
      Pos sep = FindSeparator(message.substr(0, static_cast<size_t>(next)), l, syntax.separators);
      lines.push_back({l, std::string(text), line_number, sep >= 1});
    }
    l = next;
  }
  for (const Logical& logical : lines) {
    if (logical.text[0] == syntax.comment_char) continue;
    Pos sep = FindSeparator(logical.text, 0, syntax.separators);
    if (sep < 1) continue;
    Trailer trailer;
    std::string_view token = Trim(std::string_view(logical.text).substr(0, static_cast<size_t>(sep)));
    // parse_trailer matches the trimmed token without its trailing
    // non-alphanumerics: `Ack : yes` is the configured `ack`.
    std::string_view match = token;
    while (!match.empty() && !IsAlnum(match.back())) match.remove_suffix(1);
    const ConfiguredTrailer* configured = MatchConfigured(match, syntax);
    trailer.key = (configured && !configured->key.empty()) ? KeyOf(*configured, syntax) : std::string(token);
    trailer.value = Unfold(Trim(std::string_view(logical.text).substr(static_cast<size_t>(sep) + 1)));
    trailer.line = logical.line;
    block.trailers.push_back(std::move(trailer));
  }
  return block;
}

MissingBlockDiagnosis DiagnoseMissingTrailerBlock(std::string_view message, const TrailerSyntax& syntax) {
  message = message.substr(0, message.find('\0'));
  Bounds b = Locate(message, syntax);
  if (b.start < b.end) return {};
  std::string divider_note;
  Pos patch_start = FindPatchStart(message);
  if (patch_start < static_cast<Pos>(message.size())) {
    divider_note =
        "; note: line " + std::to_string(LineNumberAt(message, patch_start)) +
        " starts with `---` and a blank, which git reads as a patch divider: nothing below it counts";
  }
  if (Trim(message.substr(0, static_cast<size_t>(b.end))).empty())
    return {"the message is empty" + divider_note, 0};
  if (b.title_end >= b.end) {
    return {
        "the message is a single paragraph, and git never reads trailers from the first paragraph (the "
        "title); put a blank line before the trailer block" +
            divider_note,
        1};
  }
  // The last paragraph: from after the last blank line before `end`.
  Pos para_start = b.end;
  Pos l = LastLine(message, b.end);
  while (l >= b.title_end && !IsBlankLine(message, l)) {
    para_start = l;
    l = LastLine(message, l);
  }
  while (para_start < b.end && IsBlankLine(message, para_start)) para_start = NextLine(message, para_start);
  int first = LineNumberAt(message, para_start);
  int last = LineNumberAt(message, std::max<Pos>(para_start, b.end - 1));
  std::string range = "lines " + std::to_string(first) + "-" + std::to_string(last);
  int line_number = first;
  int trailers = 0;
  int others = 0;
  std::string first_offender;
  int offender_line = 0;
  for (Pos p = para_start; p < b.end; p = NextLine(message, p), ++line_number) {
    Pos next = std::min(NextLine(message, p), b.end);
    std::string_view text = Trim(message.substr(static_cast<size_t>(p), static_cast<size_t>(next - p)));
    if (message[p] == syntax.comment_char || IsSpace(message[p])) continue;
    if (IsGitGenerated(message, p) || FindSeparator(message, p, syntax.separators) >= 1) {
      ++trailers;
      continue;
    }
    ++others;
    if (first_offender.empty()) {
      offender_line = line_number;
      first_offender = "line " + std::to_string(line_number) + " " + Quote(text) + " is not a trailer";
      size_t colon = text.find(':');
      if (colon != std::string_view::npos && colon > 0 &&
          text.substr(0, colon).find(' ') != std::string_view::npos) {
        first_offender += " (a trailer key has no spaces)";
      }
    }
  }
  if (trailers == 0) {
    return {"the last paragraph (" + range + ") has no `Key: value` lines" + divider_note, first};
  }
  std::string reason =
      first_offender + ", so the last paragraph (" + range + ", " + std::to_string(trailers) +
      " trailer and " + std::to_string(others) +
      " other lines) is not a trailer block: git needs every line to be a trailer, or at least 25% trailers "
      "including a Signed-off-by or configured one" +
      divider_note;
  return {reason, offender_line};
}

}  // namespace vt::gate
