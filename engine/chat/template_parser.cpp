// Template source -> tree. Tags are cut out with Hugging Face's environment settings
// (trim_blocks and lstrip_blocks on, as transformers' apply_chat_template renders), then
// statements and expressions are parsed by recursive descent.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <string>
#include <vector>

#include "engine/chat/template_ast.h"

namespace vt::chat {
namespace {

using Node = ChatTemplate::Node;
using NodePtr = std::shared_ptr<const Node>;
using json = nlohmann::ordered_json;

struct Segment {
  enum class Kind { kText, kOutput, kStatement } kind;
  std::string body;  // text, or the inside of the tag
  int line = 1;
};

int LineAt(const std::string& s, size_t pos) {
  int line = 1;
  for (size_t i = 0; i < pos && i < s.size(); ++i) line += s[i] == '\n';
  return line;
}

Status Error(int line, const std::string& what) {
  return InvalidArgument("chat template line " + std::to_string(line) + ": " + what);
}

// Cuts the source into text and tags, applying whitespace control, trim_blocks and
// lstrip_blocks; comments vanish.
Result<std::vector<Segment>> Segments(const std::string& src) {
  std::vector<Segment> out;
  size_t pos = 0;
  bool strip_next = false;  // a "-%}" / "-}}" / "-#}" asks to strip the following whitespace
  bool trim_newline = false;  // trim_blocks: one newline after a block tag
  while (pos <= src.size()) {
    size_t open = src.find('{', pos);
    while (open != std::string::npos && open + 1 < src.size() && src[open + 1] != '{' && src[open + 1] != '%' &&
           src[open + 1] != '#') {
      open = src.find('{', open + 1);
    }
    if (open + 1 >= src.size()) open = std::string::npos;
    std::string text = src.substr(pos, open == std::string::npos ? std::string::npos : open - pos);
    if (strip_next) {
      text.erase(0, text.find_first_not_of(" \t\r\n") == std::string::npos ? text.size()
                                                                             : text.find_first_not_of(" \t\r\n"));
    } else if (trim_newline && !text.empty() && text[0] == '\n') {
      text.erase(0, 1);
    }
    strip_next = trim_newline = false;
    if (open == std::string::npos) {
      if (!text.empty()) out.push_back({Segment::Kind::kText, text, LineAt(src, pos)});
      break;
    }
    const char kind = src[open + 1];
    const bool strip_before = open + 2 < src.size() && src[open + 2] == '-';
    const std::string close = kind == '{' ? "}}" : kind == '%' ? "%}" : "#}";
    const size_t end = src.find(close, open + 2);
    if (end == std::string::npos) return Error(LineAt(src, open), "tag is never closed");
    if (strip_before) {
      const size_t keep = text.find_last_not_of(" \t\r\n");
      text.erase(keep == std::string::npos ? 0 : keep + 1);
    } else if (kind == '%' || kind == '#') {
      // lstrip_blocks: spaces and tabs between the start of a source line and a block tag go.
      size_t tail = 0;
      while (tail < text.size() && (text[text.size() - 1 - tail] == ' ' || text[text.size() - 1 - tail] == '\t')) {
        ++tail;
      }
      const size_t tail_begin = open - tail;
      if (tail_begin == 0 || src[tail_begin - 1] == '\n') text.erase(text.size() - tail);
    }
    if (!text.empty()) out.push_back({Segment::Kind::kText, text, LineAt(src, pos)});
    const bool strip_after = end > open + 2 && src[end - 1] == '-';
    const size_t body_begin = open + 2 + (strip_before ? 1 : 0);
    const size_t body_end = end - (strip_after ? 1 : 0);
    const std::string body = body_end > body_begin ? src.substr(body_begin, body_end - body_begin) : "";
    if (kind == '{') out.push_back({Segment::Kind::kOutput, body, LineAt(src, open)});
    if (kind == '%') out.push_back({Segment::Kind::kStatement, body, LineAt(src, open)});
    strip_next = strip_after;
    trim_newline = kind == '%' || kind == '#';
    pos = end + 2;
  }
  return out;
}

// ---- expression tokens ----

struct Token {
  enum class Kind { kName, kNumber, kString, kOp, kEnd } kind;
  std::string text;
  json value;
};

Result<std::vector<Token>> Lex(const std::string& s, int line) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t j = i;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
      out.push_back({Token::Kind::kName, s.substr(i, j - i), nullptr});
      i = j;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t j = i;
      bool real = false;
      while (j < s.size() && (std::isdigit(static_cast<unsigned char>(s[j])) || s[j] == '.')) real |= s[j++] == '.';
      const std::string num = s.substr(i, j - i);
      errno = 0;
      char* end = nullptr;
      json value = real ? json(std::strtod(num.c_str(), &end)) : json(std::strtoll(num.c_str(), &end, 10));
      if (errno == ERANGE || end != num.c_str() + num.size()) return Error(line, "number '" + num + "' is malformed or out of range");
      out.push_back({Token::Kind::kNumber, num, value});
      i = j;
    } else if (c == '\'' || c == '"') {
      std::string v;
      size_t j = i + 1;
      for (; j < s.size() && s[j] != c; ++j) {
        if (s[j] == '\\' && j + 1 < s.size()) {
          const char e = s[++j];
          v += e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
        } else {
          v += s[j];
        }
      }
      if (j >= s.size()) return Error(line, "unterminated string literal");
      out.push_back({Token::Kind::kString, v, v});
      i = j + 1;
    } else {
      static const char* kTwo[] = {"==", "!=", "<=", ">=", "//", "**"};
      std::string op(1, c);
      for (const char* t : kTwo) {
        if (s.compare(i, 2, t) == 0) op = t;
      }
      if (std::string("()[]{}.,:|~+-*/%<>=!").find(c) == std::string::npos) {
        return Error(line, std::string("unexpected character '") + c + "'");
      }
      out.push_back({Token::Kind::kOp, op, nullptr});
      i += op.size();
    }
  }
  out.push_back({Token::Kind::kEnd, "", nullptr});
  return out;
}

// ---- expression parser ----

class ExprParser {
 public:
  ExprParser(std::vector<Token> tokens, int line) : t_(std::move(tokens)), line_(line) {}

  Result<ExprPtr> Parse() {
    ExprPtr e = ParseCond();
    if (!error_.ok()) return error_;
    return e;
  }
  bool AtEnd() const { return t_[p_].kind == Token::Kind::kEnd; }
  const Token& Peek() const { return t_[p_]; }
  // The token `ahead` places on, never past the end marker.
  const Token& PeekAt(size_t ahead) const { return t_[std::min(p_ + ahead, t_.size() - 1)]; }
  // Consumes a token; the end marker is never consumed, so a parser that keeps going after an
  // error cannot read past the tokens.
  Token Take() {
    const Token t = t_[p_];
    if (t.kind != Token::Kind::kEnd) ++p_;
    return t;
  }
  bool Accept(const std::string& text) {
    if (t_[p_].kind != Token::Kind::kString && t_[p_].text == text) {
      ++p_;
      return true;
    }
    return false;
  }
  Status status() const { return error_; }

 private:
  ExprPtr Fail(const std::string& what) {
    if (error_.ok()) error_ = Error(line_, what);
    return std::make_shared<Expr>();
  }
  static ExprPtr Make(Expr::Kind kind, std::string name, std::vector<ExprPtr> args) {
    auto e = std::make_shared<Expr>();
    e->kind = kind;
    e->name = std::move(name);
    e->args = std::move(args);
    return e;
  }

  // Nesting deeper than any real template is refused, so hostile input cannot overflow the stack.
  static constexpr int kMaxDepth = 128;
  struct DepthGuard {
    explicit DepthGuard(int& d) : depth(d) { ++depth; }
    ~DepthGuard() { --depth; }
    int& depth;
  };

  ExprPtr ParseCond() {
    DepthGuard guard(depth_);
    if (!error_.ok()) return Fail("");  // after the first error, unwind without more work
    if (depth_ > kMaxDepth) return Fail("expression nested too deeply");
    ExprPtr value = ParseOr();
    if (Accept("if")) {
      ExprPtr cond = ParseOr();
      ExprPtr other = Accept("else") ? ParseCond() : nullptr;
      return Make(Expr::Kind::kCond, "", {value, cond, other});
    }
    return value;
  }
  ExprPtr ParseOr() {
    ExprPtr l = ParseAnd();
    while (Accept("or")) l = Make(Expr::Kind::kBinary, "or", {l, ParseAnd()});
    return l;
  }
  ExprPtr ParseAnd() {
    ExprPtr l = ParseNot();
    while (Accept("and")) l = Make(Expr::Kind::kBinary, "and", {l, ParseNot()});
    return l;
  }
  ExprPtr ParseNot() {
    DepthGuard guard(depth_);
    if (depth_ > kMaxDepth) return Fail("expression nested too deeply");
    if (Accept("not")) return Make(Expr::Kind::kUnary, "not", {ParseNot()});
    return ParseCompare();
  }
  ExprPtr ParseCompare() {
    ExprPtr l = ParseConcat();
    while (true) {
      const std::string op = Peek().kind == Token::Kind::kString ? "" : Peek().text;
      if (op == "==" || op == "!=" || op == "<" || op == ">" || op == "<=" || op == ">=" || op == "in") {
        Take();
        l = Make(Expr::Kind::kBinary, op, {l, ParseConcat()});
      } else if (op == "not" && PeekAt(1).text == "in") {
        Take();
        Take();
        l = Make(Expr::Kind::kUnary, "not", {Make(Expr::Kind::kBinary, "in", {l, ParseConcat()})});
      } else if (op == "is") {
        Take();
        const bool negate = Accept("not");
        if (Peek().kind != Token::Kind::kName) return Fail("expected a test name after 'is'");
        auto test = std::make_shared<Expr>();
        test->kind = Expr::Kind::kTest;
        test->name = Take().text;
        test->negate = negate;
        test->args = {l};
        l = test;
      } else {
        return l;
      }
    }
  }
  ExprPtr ParseConcat() {
    ExprPtr l = ParseAdd();
    while (Accept("~")) l = Make(Expr::Kind::kBinary, "~", {l, ParseAdd()});
    return l;
  }
  ExprPtr ParseAdd() {
    ExprPtr l = ParseMul();
    while (Peek().kind == Token::Kind::kOp && (Peek().text == "+" || Peek().text == "-")) {
      const std::string op = Take().text;
      l = Make(Expr::Kind::kBinary, op, {l, ParseMul()});
    }
    return l;
  }
  ExprPtr ParseMul() {
    ExprPtr l = ParseUnary();
    while (Peek().kind == Token::Kind::kOp &&
           (Peek().text == "*" || Peek().text == "/" || Peek().text == "%" || Peek().text == "//")) {
      const std::string op = Take().text;
      l = Make(Expr::Kind::kBinary, op, {l, ParseUnary()});
    }
    return l;
  }
  ExprPtr ParseUnary() {
    DepthGuard guard(depth_);
    if (depth_ > kMaxDepth) return Fail("expression nested too deeply");
    if (Peek().kind == Token::Kind::kOp && Peek().text == "-") {
      Take();
      return Make(Expr::Kind::kUnary, "-", {ParseUnary()});
    }
    return ParsePostfix(ParsePrimary());
  }
  void ParseArgs(Expr& call) {
    if (Accept(")")) return;
    do {
      if (Peek().kind == Token::Kind::kName && PeekAt(1).text == "=" && PeekAt(1).kind == Token::Kind::kOp) {
        const std::string key = Take().text;
        Take();
        call.kwargs.emplace_back(key, ParseCond());
      } else {
        call.args.push_back(ParseCond());
      }
    } while (error_.ok() && Accept(","));
    if (!Accept(")")) Fail("expected ')'");
  }
  ExprPtr ParsePostfix(ExprPtr e) {
    while (error_.ok()) {
      if (Accept(".")) {
        if (Peek().kind != Token::Kind::kName) return Fail("expected an attribute name after '.'");
        e = Make(Expr::Kind::kAttr, Take().text, {e});
      } else if (Accept("[")) {
        ExprPtr parts[3] = {nullptr, nullptr, nullptr};
        int part = 0;
        bool slice = false;
        while (error_.ok() && !Accept("]")) {
          if (Accept(":")) {
            slice = true;
            if (++part > 2) return Fail("too many ':' in a slice");
          } else if (AtEnd()) {
            return Fail("expected ']'");
          } else {
            parts[part] = ParseCond();
          }
        }
        if (!slice && !parts[0]) return Fail("empty subscript '[]'");
        e = slice ? Make(Expr::Kind::kSlice, "", {e, parts[0], parts[1], parts[2]})
                  : Make(Expr::Kind::kIndex, "", {e, parts[0]});
      } else if (Accept("(")) {
        auto call = std::make_shared<Expr>();
        call->kind = Expr::Kind::kCall;
        call->args = {e};
        ParseArgs(*call);
        e = call;
      } else if (Accept("|")) {
        if (Peek().kind != Token::Kind::kName) return Fail("expected a filter name after '|'");
        auto filter = std::make_shared<Expr>();
        filter->kind = Expr::Kind::kFilter;
        filter->name = Take().text;
        filter->args = {e};
        if (Accept("(")) ParseArgs(*filter);
        e = filter;
      } else {
        return e;
      }
    }
    return e;
  }
  ExprPtr ParsePrimary() {
    const Token tok = Take();
    auto lit = std::make_shared<Expr>();
    switch (tok.kind) {
      case Token::Kind::kNumber:
      case Token::Kind::kString:
        lit->value = tok.value;
        return lit;
      case Token::Kind::kName:
        if (tok.text == "true" || tok.text == "True") lit->value = true;
        else if (tok.text == "false" || tok.text == "False") lit->value = false;
        else if (tok.text == "none" || tok.text == "None") lit->value = nullptr;
        else return Make(Expr::Kind::kName, tok.text, {});
        return lit;
      case Token::Kind::kOp:
        if (tok.text == "(") {
          ExprPtr inner = ParseCond();
          if (!Accept(")")) return Fail("expected ')'");
          return inner;
        }
        if (tok.text == "[") {
          auto list = std::make_shared<Expr>();
          list->kind = Expr::Kind::kList;
          if (!Accept("]")) {
            do list->args.push_back(ParseCond());
            while (error_.ok() && Accept(","));
            if (!Accept("]")) return Fail("expected ']'");
          }
          return list;
        }
        if (tok.text == "{") {
          auto dict = std::make_shared<Expr>();
          dict->kind = Expr::Kind::kDict;
          if (!Accept("}")) {
            do {
              if (Peek().kind != Token::Kind::kString) return Fail("dict keys must be string literals");
              const std::string key = Take().text;
              if (!Accept(":")) return Fail("expected ':' in a dict literal");
              dict->kwargs.emplace_back(key, ParseCond());
            } while (error_.ok() && Accept(","));
            if (!Accept("}")) return Fail("expected '}'");
          }
          return dict;
        }
        return Fail("unexpected '" + tok.text + "'");
      case Token::Kind::kEnd:
        return Fail("expression ends too early");
    }
    return Fail("unexpected token");
  }

  std::vector<Token> t_;
  size_t p_ = 0;
  int line_;
  int depth_ = 0;
  Status error_;
};

Result<ExprPtr> ParseExpression(const std::string& text, int line) {
  Result<std::vector<Token>> tokens = Lex(text, line);
  if (!tokens.ok()) return tokens.status();
  ExprParser p(std::move(*tokens), line);
  Result<ExprPtr> e = p.Parse();
  if (!e.ok()) return e;
  if (!p.AtEnd()) return Error(line, "unexpected '" + p.Peek().text + "' in expression '" + text + "'");
  return e;
}

// ---- statements ----

class StatementParser {
 public:
  explicit StatementParser(std::vector<Segment> segs) : segs_(std::move(segs)) {}

  // Parses until one of `ends` (a statement keyword) or the end; the keyword found is
  // left in *stop with its segment index in i_.
  Result<NodePtr> ParseBlock(const std::vector<std::string>& ends, std::string* stop) {
    auto seq = std::make_shared<Node>();
    seq->kind = Node::Kind::kSequence;
    while (i_ < segs_.size()) {
      const Segment& s = segs_[i_];
      if (s.kind == Segment::Kind::kText) {
        auto n = std::make_shared<Node>();
        n->kind = Node::Kind::kText;
        n->text = s.body;
        seq->children.push_back(n);
        ++i_;
        continue;
      }
      if (s.kind == Segment::Kind::kOutput) {
        Result<ExprPtr> e = ParseExpression(s.body, s.line);
        if (!e.ok()) return e.status();
        auto n = std::make_shared<Node>();
        n->kind = Node::Kind::kOutput;
        n->expr = *e;
        seq->children.push_back(n);
        ++i_;
        continue;
      }
      const std::string keyword = Keyword(s.body);
      for (const std::string& end : ends) {
        if (keyword == end) {
          *stop = keyword;
          return NodePtr(seq);
        }
      }
      Result<NodePtr> n = ParseStatement(keyword);
      if (!n.ok()) return n.status();
      seq->children.push_back(*n);
    }
    if (!ends.empty()) return Error(segs_.empty() ? 1 : segs_.back().line, "missing {% " + ends.back() + " %}");
    return NodePtr(seq);
  }

 private:
  static std::string Keyword(const std::string& body) {
    size_t b = body.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) return "";
    size_t e = b;
    while (e < body.size() && (std::isalnum(static_cast<unsigned char>(body[e])) || body[e] == '_')) ++e;
    return body.substr(b, e - b);
  }
  static std::string Rest(const std::string& body, const std::string& keyword) {
    return body.substr(body.find(keyword) + keyword.size());
  }

  Result<NodePtr> ParseStatement(const std::string& keyword) {
    const Segment s = segs_[i_];
    if (depth_ >= kMaxBlockDepth) return Error(s.line, "blocks nested too deeply");
    ++depth_;
    Result<NodePtr> n = ParseStatementAt(keyword, s);
    --depth_;
    return n;
  }

  Result<NodePtr> ParseStatementAt(const std::string& keyword, const Segment& s) {
    if (keyword == "if") return ParseIf();
    if (keyword == "for") return ParseFor();
    if (keyword == "set") {
      ++i_;
      const std::string rest = Rest(s.body, "set");
      const size_t eq = rest.find('=');
      if (eq == std::string::npos) return Error(s.line, "block {% set %} ... {% endset %} is not supported");
      std::string target = rest.substr(0, eq);
      target.erase(0, target.find_first_not_of(" \t"));
      target.erase(target.find_last_not_of(" \t") + 1);
      auto n = std::make_shared<Node>();
      n->kind = Node::Kind::kSet;
      const size_t dot = target.find('.');
      n->target = target.substr(0, dot);
      if (dot != std::string::npos) n->target_attr = target.substr(dot + 1);
      Result<ExprPtr> e = ParseExpression(rest.substr(eq + 1), s.line);
      if (!e.ok()) return e.status();
      n->expr = *e;
      return NodePtr(n);
    }
    return Error(s.line, "'{% " + keyword + " %}' is not supported by vt's chat template subset");
  }

  Result<NodePtr> ParseIf() {
    auto n = std::make_shared<Node>();
    n->kind = Node::Kind::kIf;
    std::string keyword = "if";
    while (true) {
      const Segment s = segs_[i_++];
      Result<ExprPtr> cond = ParseExpression(Rest(s.body, keyword), s.line);
      if (!cond.ok()) return cond.status();
      std::string stop;
      Result<NodePtr> body = ParseBlock({"elif", "else", "endif"}, &stop);
      if (!body.ok()) return body.status();
      n->branches.emplace_back(*cond, *body);
      if (stop == "elif") {
        keyword = "elif";
        continue;
      }
      if (stop == "else") {
        ++i_;
        Result<NodePtr> other = ParseBlock({"endif"}, &stop);
        if (!other.ok()) return other.status();
        n->else_body = *other;
      }
      ++i_;  // endif
      return NodePtr(n);
    }
  }

  Result<NodePtr> ParseFor() {
    const Segment s = segs_[i_++];
    const std::string rest = Rest(s.body, "for");
    const size_t in = rest.find(" in ");
    if (in == std::string::npos) return Error(s.line, "expected 'for x in ...'");
    auto n = std::make_shared<Node>();
    n->kind = Node::Kind::kFor;
    std::string vars = rest.substr(0, in);
    size_t start = 0;
    while (start <= vars.size()) {
      size_t comma = vars.find(',', start);
      std::string v = vars.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      v.erase(0, v.find_first_not_of(" \t"));
      v.erase(v.find_last_not_of(" \t") + 1);
      if (!v.empty()) n->loop_vars.push_back(v);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    std::string iterable = rest.substr(in + 4);
    if (iterable.find(" recursive") != std::string::npos)
      return Error(s.line, "recursive loops are not supported");
    // `for x in xs if cond`: Jinja's iterable has no conditional expression, so the first " if "
    // outside brackets and strings starts the filter.
    if (const size_t cond = TopLevelIf(iterable); cond != std::string::npos) {
      Result<ExprPtr> filter = ParseExpression(iterable.substr(cond + 4), s.line);
      if (!filter.ok()) return filter.status();
      n->loop_filter = *filter;
      iterable.resize(cond);
    }
    Result<ExprPtr> e = ParseExpression(iterable, s.line);
    if (!e.ok()) return e.status();
    n->expr = *e;
    std::string stop;
    Result<NodePtr> body = ParseBlock({"else", "endfor"}, &stop);
    if (!body.ok()) return body.status();
    n->body = *body;
    if (stop == "else") {
      ++i_;
      Result<NodePtr> other = ParseBlock({"endfor"}, &stop);
      if (!other.ok()) return other.status();
      n->else_body = *other;
    }
    ++i_;  // endfor
    return NodePtr(n);
  }

  // The offset of the first " if " outside brackets and string literals, or npos.
  static size_t TopLevelIf(const std::string& text) {
    int depth = 0;
    char quote = 0;
    for (size_t i = 0; i < text.size(); ++i) {
      const char c = text[i];
      if (quote != 0) {
        if (c == '\\')
          ++i;
        else if (c == quote)
          quote = 0;
      } else if (c == '\'' || c == '"') {
        quote = c;
      } else if (c == '(' || c == '[' || c == '{') {
        ++depth;
      } else if (c == ')' || c == ']' || c == '}') {
        --depth;
      } else if (depth == 0 && text.compare(i, 4, " if ") == 0) {
        return i;
      }
    }
    return std::string::npos;
  }

  static constexpr int kMaxBlockDepth = 64;
  std::vector<Segment> segs_;
  size_t i_ = 0;
  int depth_ = 0;
};

}  // namespace

Result<std::shared_ptr<const ChatTemplate::Node>> ParseTemplate(const std::string& source) {
  Result<std::vector<Segment>> segs = Segments(source);
  if (!segs.ok()) return segs.status();
  StatementParser parser(std::move(*segs));
  std::string stop;
  Result<NodePtr> root = parser.ParseBlock({}, &stop);
  if (!root.ok()) return root.status();
  return *root;
}

}  // namespace vt::chat
