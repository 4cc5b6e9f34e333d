#include "governance/trailer_parser.h"

#include <algorithm>
#include <cstring>

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
// Called for every line of a trailer block, three times: the usual single
// separator is compared directly rather than searched for in a string.
Pos FindSeparator(std::string_view buf, Pos pos, std::string_view separators) {
  bool whitespace_found = false;
  Pos n = static_cast<Pos>(buf.size());
  const bool single = separators.size() == 1;
  const char only = single ? separators[0] : '\0';
  for (Pos c = pos; c < n && buf[c] != '\0'; ++c) {
    if (single ? buf[c] == only : separators.find(buf[c]) != std::string_view::npos) return c - pos;
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
  size_t at = static_cast<size_t>(pos);
  return at + prefix.size() <= buf.size() && std::memcmp(buf.data() + at, prefix.data(), prefix.size()) == 0;
}

// A `---` line followed by whitespace starts a patch; the message ends there.
// Searched for rather than tested line by line: most messages have none.
Pos FindPatchStart(std::string_view buf) {
  Pos n = static_cast<Pos>(buf.size());
  for (size_t at = buf.find("---"); at != std::string_view::npos; at = buf.find("---", at + 1)) {
    Pos s = static_cast<Pos>(at);
    if ((s == 0 || buf[s - 1] == '\n') && s + 3 < n && IsSpace(buf[s + 3])) return s;
  }
  return n;
}

// wt_status_locate_end: a scissors line (the comment character, then this)
// cuts the message.
constexpr std::string_view kScissorsTail = " ------------------------ >8 ------------------------\n";

Pos LocateScissors(std::string_view buf, Pos len, char comment_char) {
  if (!buf.empty() && buf[0] == comment_char && StartsWith(buf, 1, kScissorsTail)) return 0;
  for (size_t at = buf.find(kScissorsTail); at != std::string_view::npos; at = buf.find(kScissorsTail, at + 1)) {
    if (at >= 2 && buf[at - 1] == comment_char && buf[at - 2] == '\n')
      return std::min<Pos>(len, static_cast<Pos>(at) - 1);
  }
  return len;
}

// ignore_non_trailer: trailing comment lines, blank lines and an old-style
// "Conflicts:" block are not part of the message body.
Pos FindTrailerEnd(std::string_view buf, Pos len, char comment_char) {
  Pos boc = 0;
  Pos bol = 0;
  bool in_old_conflicts_block = false;
  Pos cutoff = LocateScissors(buf, len, comment_char);
  // Whatever came before, a last line that is none of these ends the body
  // where the cut does: the common case, decided without reading the rest.
  if (Pos last = LastLine(buf, cutoff); last >= 0) {
    char c = buf[last];
    if (c != comment_char && c != '\n' && c != '\t' && !StartsWith(buf, last, "Conflicts:\n")) return cutoff;
  }
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
// when it qualifies as a trailer block, else `len`. `end_of_title` is
// FindEndOfTitle(buf, len).
Pos FindTrailerStart(std::string_view buf, Pos len, Pos end_of_title, const TrailerSyntax& syntax) {
  bool only_spaces = true;
  bool recognized_prefix = false;
  int trailer_lines = 0;
  int non_trailer_lines = 0;
  // Indented lines count as continuations of a trailer below them, or as
  // non-trailers once a non-trailer line shows they continue nothing.
  int possible_continuation_lines = 0;

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
// Written into `out` directly: most values are one line and copied as they are.
void Unfold(std::string_view value, std::string& out) {
  if (value.find('\n') == std::string_view::npos) {
    out.assign(Trim(value));
    return;
  }
  out.clear();
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
  size_t first = 0;
  while (first < out.size() && IsSpace(out[first])) ++first;
  size_t last = out.size();
  while (last > first && IsSpace(out[last - 1])) --last;
  out.erase(last);
  out.erase(0, first);
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
  b.title_end = FindEndOfTitle(buf, b.end, syntax.comment_char);
  b.start = FindTrailerStart(buf, b.end, b.title_end, syntax);
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
  block.trailers.reserve(
      1 + static_cast<size_t>(std::count(message.begin() + b.start, message.begin() + b.end - 1, '\n')));

  // A logical line: an indented line continues the previous one when that one
  // has a separator. Its physical lines are adjacent, so it is a view.
  // `sep`: the separator of its first physical line, which is the logical
  // line's too when nothing continues it.
  auto add = [&](std::string_view text, int line, Pos sep, bool continued) {
    if (text[0] == syntax.comment_char) return;
    if (continued) sep = FindSeparator(text, 0, syntax.separators);
    if (sep < 1) return;
    Trailer& trailer = block.trailers.emplace_back();
    std::string_view token = Trim(text.substr(0, static_cast<size_t>(sep)));
    // parse_trailer matches the trimmed token without its trailing
    // non-alphanumerics: `Ack : yes` is the configured `ack`.
    std::string_view match = token;
    while (!match.empty() && !IsAlnum(match.back())) match.remove_suffix(1);
    const ConfiguredTrailer* configured = syntax.configured.empty() ? nullptr : MatchConfigured(match, syntax);
    if (configured && !configured->key.empty()) {
      trailer.key = KeyOf(*configured, syntax);
    } else {
      trailer.key.assign(token);
    }
    Unfold(Trim(text.substr(static_cast<size_t>(sep) + 1)), trailer.value);
    trailer.line = line;
  };
  Pos logical_begin = -1;
  Pos logical_end = 0;
  Pos logical_sep = -1;
  bool continued = false;
  int logical_line = 0;
  int line_number = block.first_line;
  auto flush = [&] {
    if (logical_begin < 0) return;
    add(message.substr(static_cast<size_t>(logical_begin), static_cast<size_t>(logical_end - logical_begin)),
        logical_line, logical_sep, continued);
  };
  for (Pos l = b.start; l < b.end; ++line_number) {
    Pos next = std::min(NextLine(message, l), b.end);
    if (logical_begin >= 0 && logical_sep >= 1 && IsSpace(message[l])) {
      logical_end = next;
      continued = true;
    } else {
      flush();
      logical_sep = FindSeparator(message.substr(0, static_cast<size_t>(next)), l, syntax.separators);
      logical_begin = l;
      logical_end = next;
      logical_line = line_number;
      continued = false;
    }
    block.last_line = line_number;
    l = next;
  }
  flush();
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
