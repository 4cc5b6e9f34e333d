#include "engine/grammar/regex_syntax.h"

#include <string>

#include "engine/tokenizer/utf8.h"

namespace vt::grammar {

namespace {

// \d \w \s as PCRE has them without UCP (and Python with re.ASCII): ASCII only, so a model's
// digits are the digits a program reading the output expects.
const std::vector<CharRange> kDigit = {{'0', '9'}};
const std::vector<CharRange> kWord = {{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}};
const std::vector<CharRange> kSpace = {{'\t', '\r'}, {' ', ' '}};

std::unique_ptr<RegexNode> Node(RegexNode::Kind kind) {
  auto n = std::make_unique<RegexNode>();
  n->kind = kind;
  return n;
}

std::unique_ptr<RegexNode> CharsNode(std::vector<CharRange> ranges) {
  auto n = Node(RegexNode::kChars);
  n->ranges = NormalizeRanges(std::move(ranges));
  return n;
}

bool IsAsciiAlnum(char32_t c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

class Parser {
 public:
  Parser(std::string_view pattern, const RegexLimits& limits)
      : pattern_(pattern), limits_(limits), chars_(DecodeUtf8(pattern)) {}

  Result<std::unique_ptr<RegexNode>> Parse() {
    Result<std::unique_ptr<RegexNode>> root = Alternation(0);
    if (!root.ok()) return root.status();
    if (!AtEnd()) return Error("unmatched ')'", Offset());  // Alternation stops only at ')' or the end
    return root;
  }

 private:
  bool AtEnd() const { return i_ >= chars_.size(); }
  char32_t Peek(size_t ahead = 0) const { return i_ + ahead < chars_.size() ? chars_[i_ + ahead].first : 0; }
  size_t Offset() const { return i_ < chars_.size() ? chars_[i_].second : pattern_.size(); }
  bool Next(char32_t c) const { return !AtEnd() && Peek() == c; }
  bool LooksAt(std::string_view ascii) const {
    for (size_t k = 0; k < ascii.size(); ++k) {
      if (i_ + k >= chars_.size() || chars_[i_ + k].first != char32_t(uint8_t(ascii[k]))) return false;
    }
    return true;
  }

  static Status Error(const std::string& what, size_t offset) {
    return InvalidArgument("regex: " + what + " at offset " + std::to_string(offset));
  }
  static Status Unsupported(const std::string& construct, size_t offset, const std::string& why) {
    return InvalidArgument("regex: " + construct + " at offset " + std::to_string(offset) + " is not supported (" +
                           why + ")");
  }

  Result<std::unique_ptr<RegexNode>> Alternation(int depth) {
    if (depth > limits_.max_depth) {
      return Error("groups nested deeper than " + std::to_string(limits_.max_depth), Offset());
    }
    std::vector<std::unique_ptr<RegexNode>> branches;
    while (true) {
      Result<std::unique_ptr<RegexNode>> branch = Concatenation(depth);
      if (!branch.ok()) return branch.status();
      branches.push_back(std::move(*branch));
      if (!Next('|')) break;
      ++i_;
    }
    if (branches.size() == 1) return std::move(branches[0]);
    auto alt = Node(RegexNode::kAlternate);
    alt->children = std::move(branches);
    return alt;
  }

  Result<std::unique_ptr<RegexNode>> Concatenation(int depth) {
    auto concat = Node(RegexNode::kConcat);
    while (!AtEnd() && Peek() != '|' && Peek() != ')') {
      const size_t at = Offset();
      if (Peek() == '*' || Peek() == '+' || Peek() == '?' || (Peek() == '{' && QuantifierAhead())) {
        return Error("nothing to repeat", at);
      }
      Result<std::unique_ptr<RegexNode>> atom = Atom(depth);
      if (!atom.ok()) return atom.status();
      Result<std::unique_ptr<RegexNode>> quantified = Quantified(std::move(*atom));
      if (!quantified.ok()) return quantified.status();
      concat->children.push_back(std::move(*quantified));
    }
    if (concat->children.empty()) return Node(RegexNode::kEmpty);
    if (concat->children.size() == 1) return std::move(concat->children[0]);
    return concat;
  }

  // `{` starts a repetition only as {m}, {m,} or {m,n} (and {,n}, refused below); anywhere else
  // it is a literal brace, as in PCRE and Python.
  bool QuantifierAhead() const {
    size_t k = 1;
    auto digit = [&](size_t at) { return Peek(at) >= '0' && Peek(at) <= '9'; };
    const bool leading = digit(k);
    while (digit(k)) ++k;
    if (Peek(k) == '}') return leading;
    if (Peek(k) != ',') return false;
    ++k;
    const bool trailing = digit(k);
    while (digit(k)) ++k;
    return Peek(k) == '}' && (leading || trailing);
  }

  Result<int64_t> Count(size_t at) {
    int64_t n = 0;
    while (Peek() >= '0' && Peek() <= '9') {
      n = n * 10 + int64_t(Peek() - '0');
      ++i_;
      if (n > limits_.max_repeat) {
        return Error("repetition count above " + std::to_string(limits_.max_repeat), at);
      }
    }
    return n;
  }

  Result<std::unique_ptr<RegexNode>> Quantified(std::unique_ptr<RegexNode> atom) {
    if (AtEnd()) return atom;
    const size_t at = Offset();
    int64_t min = 0, max = -1;
    if (Next('*')) {
      ++i_;
    } else if (Next('+')) {
      min = 1;
      ++i_;
    } else if (Next('?')) {
      max = 1;
      ++i_;
    } else if (Next('{') && QuantifierAhead()) {
      ++i_;
      if (Next(',')) {
        return Unsupported("'{,n}'", at, "PCRE reads it as literal text and Python as {0,n}; write {0,n}");
      }
      Result<int64_t> lo = Count(at);
      if (!lo.ok()) return lo.status();
      min = max = *lo;
      if (Next(',')) {
        ++i_;
        max = -1;
        if (!Next('}')) {
          Result<int64_t> hi = Count(at);
          if (!hi.ok()) return hi.status();
          max = *hi;
        }
      }
      ++i_;  // '}', which QuantifierAhead saw
      if (max >= 0 && max < min) return Error("repetition {m,n} with n below m", at);
    } else {
      return atom;
    }
    if (atom->kind == RegexNode::kStart || atom->kind == RegexNode::kEnd) return Error("nothing to repeat", at);
    if (Next('+')) return Unsupported("possessive quantifier", at, "it changes which strings match");
    // A lazy quantifier matches the same whole strings as the greedy one.
    if (Next('?')) ++i_;
    if (!AtEnd() && (Peek() == '*' || Peek() == '+' || Peek() == '?' || (Peek() == '{' && QuantifierAhead()))) {
      return Error("nothing to repeat", Offset());
    }
    auto repeat = Node(RegexNode::kRepeat);
    repeat->min = min;
    repeat->max = max;
    repeat->children.push_back(std::move(atom));
    return repeat;
  }

  Result<std::unique_ptr<RegexNode>> Atom(int depth) {
    const size_t at = Offset();
    const char32_t c = Peek();
    if (c == '(') return Group(depth);
    if (c == '[') return Class();
    ++i_;
    if (c == '.') return CharsNode({{0, '\n' - 1}, {'\n' + 1, kMaxCodePoint}});
    if (c == '^') return Node(RegexNode::kStart);
    if (c == '$') return Node(RegexNode::kEnd);
    if (c != '\\') return CharsNode({{uint32_t(c), uint32_t(c)}});
    return Escape(at, false);
  }

  Result<std::unique_ptr<RegexNode>> Group(int depth) {
    const size_t at = Offset();
    ++i_;  // '('
    if (Next('?')) {
      if (LooksAt("?:")) {
        i_ += 2;
      } else if (LooksAt("?P<") || LooksAt("?<") || LooksAt("?'")) {
        if (LooksAt("?<=") || LooksAt("?<!")) return Unsupported("lookbehind '(" + Text(3) + "'", at, "not regular");
        i_ += LooksAt("?P<") ? 3 : 2;
        const char32_t close = chars_[i_ - 1].first == '\'' ? '\'' : '>';
        const size_t name = i_;
        while (!AtEnd() && (IsAsciiAlnum(Peek()) || Peek() == '_')) ++i_;
        if (i_ == name || !Next(close) || (chars_[name].first >= '0' && chars_[name].first <= '9')) {
          return Error("malformed group name", at);
        }
        ++i_;
      } else if (LooksAt("?=") || LooksAt("?!")) {
        return Unsupported("lookahead '(" + Text(2) + "'", at, "not regular");
      } else if (LooksAt("?>")) {
        return Unsupported("atomic group '(?>'", at, "it changes which strings match");
      } else if (LooksAt("?P=")) {
        return Unsupported("backreference '(?P='", at, "not regular");
      } else {
        return Unsupported("group construct '(" + Text(2) + "'", at,
                           "only (...), (?:...) and named groups are; no inline flags, comments or recursion");
      }
    }
    Result<std::unique_ptr<RegexNode>> inner = Alternation(depth + 1);
    if (!inner.ok()) return inner.status();
    if (!Next(')')) return Error("unclosed group '('", at);
    ++i_;
    return inner;
  }

  std::string Text(size_t n) const {
    std::string out;
    for (size_t k = 0; k < n && i_ + k < chars_.size(); ++k) AppendUtf8(chars_[i_ + k].first, &out);
    return out;
  }

  // One code point written as an escape, or a class escape (\d ...) as its ranges; `at` is the
  // backslash's offset and i_ is past it.
  Result<std::unique_ptr<RegexNode>> Escape(size_t at, bool in_class) {
    if (AtEnd()) return Error("a trailing backslash", at);
    const char32_t c = Peek();
    ++i_;
    switch (c) {
      case 'd': return CharsNode(kDigit);
      case 'D': return CharsNode(ComplementRanges(kDigit));
      case 'w': return CharsNode(kWord);
      case 'W': return CharsNode(ComplementRanges(kWord));
      case 's': return CharsNode(kSpace);
      case 'S': return CharsNode(ComplementRanges(kSpace));
      case 'n': return CharsNode({{'\n', '\n'}});
      case 't': return CharsNode({{'\t', '\t'}});
      case 'r': return CharsNode({{'\r', '\r'}});
      case 'f': return CharsNode({{'\f', '\f'}});
      case 'v': return CharsNode({{'\v', '\v'}});
      case '0':
        if (Peek() >= '0' && Peek() <= '7') return Unsupported("octal escape", at, "write \\xHH");
        return CharsNode({{0, 0}});
      case 'x': return Hex(at, 2);
      case 'u': return Hex(at, 4);
      case 'A':
        if (in_class) break;
        return Node(RegexNode::kStart);
      case 'z':
        if (in_class) break;
        return Node(RegexNode::kEnd);
      case 'b':
      case 'B':
        return Unsupported(std::string("word boundary '\\") + char(c) + "'", at, "an assertion on characters around it");
      case 'Z':
        return Unsupported("'\\Z'", at, "it also matches before a final newline; write \\z or $");
      case 'k':
      case 'g':
        return Unsupported(std::string("backreference '\\") + char(c) + "'", at, "not regular");
      case 'p':
      case 'P':
        return Unsupported(std::string("Unicode property '\\") + char(c) + "'", at, "write the ranges as a class");
      default:
        break;
    }
    if (c >= '1' && c <= '9') return Unsupported(std::string("backreference '\\") + char(c) + "'", at, "not regular");
    if (IsAsciiAlnum(c)) return Error(std::string("unknown escape '\\") + char(c) + "'", at);
    return CharsNode({{uint32_t(c), uint32_t(c)}});
  }

  // \xHH, \x{H...} and (digits == 4) \uHHHH; i_ is past the letter.
  Result<std::unique_ptr<RegexNode>> Hex(size_t at, int digits) {
    const bool braced = digits == 2 && Next('{');
    if (braced) ++i_;
    uint32_t value = 0;
    int n = 0;
    while ((braced || n < digits) && HexDigitValue(Peek()) >= 0 && !AtEnd()) {
      value = value * 16 + uint32_t(HexDigitValue(Peek()));
      ++i_;
      if (++n > 8 || value > kMaxCodePoint) return Error("a code point above U+10FFFF", at);
    }
    if (braced ? (n == 0 || !Next('}')) : n != digits) return Error("malformed hexadecimal escape", at);
    if (braced) ++i_;
    if (value >= kSurrogateLo && value <= kSurrogateHi) return Error("a UTF-16 surrogate, which is no character,", at);
    return CharsNode({{value, value}});
  }

  Result<std::unique_ptr<RegexNode>> Class() {
    const size_t open = Offset();
    ++i_;  // '['
    const bool negated = Next('^');
    if (negated) ++i_;
    std::vector<CharRange> ranges;
    bool first = true;
    while (true) {
      if (AtEnd()) return Error("unclosed character class '['", open);
      if (Next(']') && !first) break;
      first = false;
      if (LooksAt("[:") || LooksAt("[=") || LooksAt("[.")) {
        return Unsupported("POSIX class '" + Text(2) + "'", Offset(), "write the ranges");
      }
      Result<std::unique_ptr<RegexNode>> lo = ClassAtom();
      if (!lo.ok()) return lo.status();
      const bool single = (*lo)->ranges.size() == 1 && (*lo)->ranges[0].lo == (*lo)->ranges[0].hi;
      if (Next('-') && Peek(1) != ']' && i_ + 1 < chars_.size()) {
        const size_t dash = Offset();
        ++i_;
        Result<std::unique_ptr<RegexNode>> hi = ClassAtom();
        if (!hi.ok()) return hi.status();
        const bool hi_single = (*hi)->ranges.size() == 1 && (*hi)->ranges[0].lo == (*hi)->ranges[0].hi;
        if (!single || !hi_single) return Error("a range with a class escape as an end", dash);
        if ((*hi)->ranges[0].lo < (*lo)->ranges[0].lo) return Error("a range out of order", dash);
        ranges.push_back({(*lo)->ranges[0].lo, (*hi)->ranges[0].lo});
        continue;
      }
      ranges.insert(ranges.end(), (*lo)->ranges.begin(), (*lo)->ranges.end());
    }
    ++i_;  // ']'
    return CharsNode(negated ? ComplementRanges(ranges) : ranges);
  }

  // A class member: a character or an escape (which may be a class such as \d). A surrogate
  // range's ends would be refused by Hex; Normalize drops what a wider range holds of them.
  Result<std::unique_ptr<RegexNode>> ClassAtom() {
    const size_t at = Offset();
    const char32_t c = Peek();
    ++i_;
    if (c != '\\') return CharsNode({{uint32_t(c), uint32_t(c)}});
    if (Next('b')) return Unsupported("'\\b' in a class", at, "PCRE and Python read it as backspace; write \\x08");
    Result<std::unique_ptr<RegexNode>> e = Escape(at, true);
    if (!e.ok()) return e.status();
    if ((*e)->kind != RegexNode::kChars) return Error("an assertion inside a character class", at);
    return e;
  }

  std::string_view pattern_;
  const RegexLimits& limits_;
  std::vector<std::pair<char32_t, size_t>> chars_;
  size_t i_ = 0;
};

}  // namespace

Result<std::unique_ptr<RegexNode>> ParseRegex(std::string_view pattern, const RegexLimits& limits) {
  if (pattern.size() > limits.max_pattern_bytes) {
    return InvalidArgument("regex: longer than " + std::to_string(limits.max_pattern_bytes) + " bytes");
  }
  if (SanitizeUtf8(pattern) != pattern) return InvalidArgument("regex: not valid UTF-8");
  return Parser(pattern, limits).Parse();
}

}  // namespace vt::grammar
