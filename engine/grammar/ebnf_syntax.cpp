#include "engine/grammar/ebnf_syntax.h"

#include <unordered_map>

#include "engine/tokenizer/utf8.h"

namespace vt::grammar {

namespace {

bool IsNameChar(char32_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

class Parser {
 public:
  Parser(std::string_view text, const EbnfLimits& limits) : limits_(limits) {
    TextPosition p;
    for (const auto& [cp, offset] : DecodeUtf8(text)) {
      chars_.push_back(cp);
      at_.push_back(p);
      if (cp == '\n') {
        ++p.line;
        p.column = 1;
      } else {
        ++p.column;
      }
    }
    at_.push_back(p);  // the end of the text
  }

  Result<EbnfSyntax> Parse() {
    SkipSpace();
    while (!AtEnd()) {
      Status s = Rule();
      if (!s.ok()) return s;
      SkipSpace();
    }
    for (size_t r = 0; r < syntax_.rules.size(); ++r) {
      if (!defined_[r]) {
        return Error("undefined rule '" + syntax_.rules[r].name + "'", syntax_.rules[r].at);  // its first use
      }
    }
    const auto root = index_.find("root");
    if (root == index_.end()) return InvalidArgument("grammar: there is no 'root' rule, where the grammar starts");
    syntax_.root = root->second;
    return std::move(syntax_);
  }

 private:
  bool AtEnd() const { return i_ >= chars_.size(); }
  char32_t Peek(size_t ahead = 0) const { return i_ + ahead < chars_.size() ? chars_[i_ + ahead] : 0; }
  bool Next(char32_t c) const { return !AtEnd() && Peek() == c; }
  TextPosition Here() const { return at_[i_]; }

  static Status Error(const std::string& what, TextPosition at) {
    return InvalidArgument("grammar: " + what + " at " + ToString(at));
  }
  Status Error(const std::string& what) const { return Error(what, Here()); }

  // Spaces, line ends and comments, which separate everything and mean nothing.
  void SkipSpace() { i_ = SpaceEnd(i_); }
  size_t SpaceEnd(size_t k) const {
    while (k < chars_.size()) {
      const char32_t c = chars_[k];
      if (c == '#') {
        while (k < chars_.size() && chars_[k] != '\n') ++k;
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
        ++k;
      } else {
        break;
      }
    }
    return k;
  }

  // A name followed by ::= starts the next rule, which ends the one before it.
  bool RuleAhead() const {
    size_t k = i_;
    while (k < chars_.size() && IsNameChar(chars_[k])) ++k;
    if (k == i_) return false;
    k = SpaceEnd(k);
    return k + 2 < chars_.size() && chars_[k] == ':' && chars_[k + 1] == ':' && chars_[k + 2] == '=';
  }

  std::string Name() {
    std::string name;
    while (!AtEnd() && IsNameChar(Peek())) name += char(Peek()), ++i_;
    return name;
  }

  int32_t RuleIndex(const std::string& name, TextPosition used_at) {
    const auto [it, added] = index_.emplace(name, int32_t(syntax_.rules.size()));
    if (added) {
      syntax_.rules.push_back({name, {}, used_at});
      defined_.push_back(false);
    }
    return it->second;
  }

  Status Rule() {
    const TextPosition at = Here();
    if (!IsNameChar(Peek())) return Error("expected a rule name ('name ::= ...')");
    const std::string name = Name();
    SkipSpace();
    if (!(Next(':') && Peek(1) == ':' && Peek(2) == '=')) return Error("expected '::=' after the rule name '" + name + "'");
    i_ += 3;
    const int32_t r = RuleIndex(name, at);
    if (defined_[size_t(r)]) {
      return Error("rule '" + name + "' is defined twice (first at " + ToString(syntax_.rules[size_t(r)].at) + ")", at);
    }
    defined_[size_t(r)] = true;
    syntax_.rules[size_t(r)].at = at;
    Result<EbnfNode> body = Alternation(0);
    if (!body.ok()) return body.status();
    if (Next(')')) return Error("unmatched ')'");
    syntax_.rules[size_t(r)].body = std::move(*body);
    return Status();
  }

  // Alternatives up to a ')', the end of the text or the next rule.
  Result<EbnfNode> Alternation(int depth) {
    EbnfNode alt;
    alt.kind = EbnfNode::kAlternate;
    alt.at = Here();
    while (true) {
      Result<EbnfNode> seq = Sequence(depth);
      if (!seq.ok()) return seq.status();
      alt.children.push_back(std::move(*seq));
      if (!Next('|')) break;
      ++i_;
    }
    if (alt.children.size() == 1) return std::move(alt.children[0]);
    return alt;
  }

  Result<EbnfNode> Sequence(int depth) {
    EbnfNode seq;
    seq.kind = EbnfNode::kSequence;
    SkipSpace();
    seq.at = Here();
    while (!AtEnd() && !Next('|') && !Next(')') && !RuleAhead()) {
      if (Next('*') || Next('+') || Next('?') || Next('{')) return Error("nothing to repeat");
      Result<EbnfNode> item = Primary(depth);
      if (!item.ok()) return item.status();
      SkipSpace();
      for (int stacked = 1; Next('*') || Next('+') || Next('?') || Next('{'); ++stacked) {
        if (depth + stacked > limits_.max_depth) return TooDeep();
        item = Quantified(std::move(*item));
        if (!item.ok()) return item.status();
        SkipSpace();
      }
      seq.children.push_back(std::move(*item));
    }
    if (seq.children.size() == 1) return std::move(seq.children[0]);
    return seq;
  }

  Status TooDeep() const {
    return Error("groups and repetitions nested deeper than " + std::to_string(limits_.max_depth));
  }

  Result<EbnfNode> Primary(int depth) {
    EbnfNode n;
    n.at = Here();
    const char32_t c = Peek();
    if (c == '(') {
      if (depth + 1 > limits_.max_depth) return TooDeep();
      ++i_;
      Result<EbnfNode> inner = Alternation(depth + 1);
      if (!inner.ok()) return inner.status();
      if (!Next(')')) return Error("unclosed group '('", n.at);
      ++i_;
      return inner;
    }
    if (c == '"') return Literal();
    if (c == '[') return Class();
    if (c == '.') {
      ++i_;
      n.kind = EbnfNode::kChars;
      n.ranges = NormalizeRanges({{0, kMaxCodePoint}});
      return n;
    }
    if (IsNameChar(c)) {
      n.kind = EbnfNode::kReference;
      n.rule = RuleIndex(Name(), n.at);
      return n;
    }
    std::string shown;
    AppendUtf8(c, &shown);
    return Error("unexpected '" + shown + "'");
  }

  Result<EbnfNode> Literal() {
    EbnfNode n;
    n.kind = EbnfNode::kLiteral;
    n.at = Here();
    ++i_;  // '"'
    while (!Next('"')) {
      if (AtEnd()) return Error("unclosed string literal '\"'", n.at);
      Result<uint32_t> cp = Char();
      if (!cp.ok()) return cp.status();
      n.text.push_back(*cp);
    }
    ++i_;
    return n;
  }

  Result<EbnfNode> Class() {
    EbnfNode n;
    n.kind = EbnfNode::kChars;
    n.at = Here();
    ++i_;  // '['
    const bool negated = Next('^');
    if (negated) ++i_;
    std::vector<CharRange> ranges;
    while (!Next(']')) {
      if (AtEnd()) return Error("unclosed character class '['", n.at);
      Result<uint32_t> lo = Char();
      if (!lo.ok()) return lo.status();
      uint32_t hi = *lo;
      if (Next('-') && Peek(1) != ']' && i_ + 1 < chars_.size()) {
        const TextPosition dash = Here();
        ++i_;
        Result<uint32_t> end = Char();
        if (!end.ok()) return end.status();
        if (*end < *lo) return Error("a range out of order", dash);
        hi = *end;
      }
      ranges.push_back({*lo, hi});
    }
    ++i_;
    n.ranges = negated ? ComplementRanges(ranges) : NormalizeRanges(std::move(ranges));
    return n;
  }

  // One character of a literal or class, itself or as an escape.
  Result<uint32_t> Char() {
    const TextPosition at = Here();
    const char32_t c = Peek();
    ++i_;
    if (c != '\\') return uint32_t(c);
    if (AtEnd()) return Error("an unfinished escape", at);
    const char32_t e = Peek();
    ++i_;
    switch (e) {
      case 'n': return uint32_t('\n');
      case 'r': return uint32_t('\r');
      case 't': return uint32_t('\t');
      case '\\': case '"': case '\'': case '[': case ']': case '-': return uint32_t(e);
      case 'x': return Hex(at, 2);
      case 'u': return Hex(at, 4);
      case 'U': return Hex(at, 8);
      default: break;
    }
    std::string shown;
    AppendUtf8(e, &shown);
    return Error("unknown escape '\\" + shown + "'", at);
  }

  Result<uint32_t> Hex(TextPosition at, int digits) {
    uint64_t value = 0;
    for (int k = 0; k < digits; ++k) {
      if (AtEnd() || HexDigitValue(Peek()) < 0) {
        return Error("a malformed escape (it takes " + std::to_string(digits) + " hexadecimal digits)", at);
      }
      value = value * 16 + uint64_t(HexDigitValue(Peek()));
      ++i_;
    }
    if (value > kMaxCodePoint) return Error("a code point above U+10FFFF", at);
    if (value >= kSurrogateLo && value <= kSurrogateHi) return Error("a UTF-16 surrogate, which is no character,", at);
    return uint32_t(value);
  }

  Result<EbnfNode> Quantified(EbnfNode item) {
    EbnfNode n;
    n.kind = EbnfNode::kRepeat;
    n.at = Here();
    n.max = -1;
    const char32_t q = Peek();
    ++i_;
    if (q == '+') {
      n.min = 1;
    } else if (q == '?') {
      n.max = 1;
    } else if (q == '{') {
      SkipSpace();
      Result<int64_t> lo = Count(n.at);
      if (!lo.ok()) return lo.status();
      n.min = n.max = *lo;
      SkipSpace();
      if (Next(',')) {
        ++i_;
        SkipSpace();
        n.max = -1;
        if (!Next('}')) {
          Result<int64_t> hi = Count(n.at);
          if (!hi.ok()) return hi.status();
          n.max = *hi;
          SkipSpace();
        }
      }
      if (!Next('}')) return Error("unclosed repetition '{'", n.at);
      ++i_;
      if (n.max >= 0 && n.max < n.min) return Error("a repetition {m,n} with n below m", n.at);
    }
    n.children.push_back(std::move(item));
    return n;
  }

  Result<int64_t> Count(TextPosition at) {
    if (!(Peek() >= '0' && Peek() <= '9')) return Error("expected a count in '{m}', '{m,}' or '{m,n}'", at);
    int64_t n = 0;
    while (Peek() >= '0' && Peek() <= '9') {
      n = n * 10 + int64_t(Peek() - '0');
      ++i_;
      if (n > limits_.max_repeat) return Error("a repetition count above " + std::to_string(limits_.max_repeat), at);
    }
    return n;
  }

  const EbnfLimits& limits_;
  std::vector<char32_t> chars_;
  std::vector<TextPosition> at_;  // per code point, and one for the end
  size_t i_ = 0;
  EbnfSyntax syntax_;
  std::unordered_map<std::string, int32_t> index_;
  std::vector<bool> defined_;
};

}  // namespace

std::string ToString(TextPosition p) { return std::to_string(p.line) + ":" + std::to_string(p.column); }

Result<EbnfSyntax> ParseEbnf(std::string_view text, const EbnfLimits& limits) {
  if (text.size() > limits.max_text_bytes) {
    return InvalidArgument("grammar: longer than " + std::to_string(limits.max_text_bytes) + " bytes");
  }
  if (SanitizeUtf8(text) != text) return InvalidArgument("grammar: not valid UTF-8");
  return Parser(text, limits).Parse();
}

}  // namespace vt::grammar
