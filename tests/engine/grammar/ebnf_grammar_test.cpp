// The GBNF front end of the grammar engine. A compiled grammar accepts exactly its language, held
// against independent oracles on strings sampled from the grammar, their mutations and random
// strings: PCRE2 for grammars that are regular, nlohmann's JSON parser for a JSON grammar and a
// hand-written recognizer for arithmetic expressions; hand-enumerated strings for the rest. Every
// error names its problem and line:column; hostile texts are errors, promptly; and on the embedded
// model's real tokenizer the token masks allow only prefixes of sentences, and EOS exactly on one.
#include "engine/grammar/ebnf_grammar.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "engine/grammar/grammar_constraint.h"
#include "engine/grammar/grammar_matcher.h"
#include "engine/tokenizer/tokenizer.h"
#include "engine/tokenizer/utf8.h"
#include "tests/engine/grammar/allowed_token_walks.h"
#include "tests/engine/grammar/pcre_full_match.h"
#include "tests/engine/grammar/random_strings.h"
#include "tests/engine/grammar/sentence_match.h"
#include "tests/source_root.h"

namespace vt::grammar {
namespace {

std::shared_ptr<const Grammar> Compile(const std::string& text) { return Shared(CompileEbnf(text), text); }

// Random sentences of a context-free grammar: random alternatives until the walk is `kDeep` rules
// down, then the alternative with the shortest derivation, so that every walk ends.
class Sampler {
 public:
  explicit Sampler(const Grammar& g) : g_(g), shortest_(g.rules.size(), kNever) {
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t r = 0; r < g.rules.size(); ++r) {
        for (const Sequence& seq : g.rules[r].alternatives) {
          if (Length(seq) < shortest_[r]) shortest_[r] = Length(seq), changed = true;
        }
      }
    }
  }

  std::string Sample(std::mt19937& rng) const {
    std::string out;
    Expand(g_.root, 0, rng, out);
    return out;
  }

 private:
  static constexpr int64_t kNever = int64_t(1) << 40;
  static constexpr int kDeep = 10;

  int64_t Length(const Sequence& seq) const {
    int64_t n = 0;
    for (const Element& e : seq) n += e.kind == Element::kChars ? 1 : shortest_[size_t(e.rule)];
    return std::min(n, kNever);
  }

  void Expand(int32_t rule, int depth, std::mt19937& rng, std::string& out) const {
    const std::vector<Sequence>& alts = g_.rules[size_t(rule)].alternatives;
    size_t pick = rng() % alts.size();
    if (depth >= kDeep) {
      for (size_t a = 0; a < alts.size(); ++a) {
        if (Length(alts[a]) < Length(alts[pick])) pick = a;
      }
    }
    for (const Element& e : alts[pick]) {
      if (e.kind == Element::kChars) {
        AppendUtf8(char32_t(Pick(e.ranges, rng)), &out);
      } else {
        Expand(e.rule, depth + 1, rng, out);
      }
    }
  }

  const Grammar& g_;
  std::vector<int64_t> shortest_;
};

// The grammar and `oracle` agree on sampled sentences, three mutations of each and random strings;
// both verdicts occur.
void ExpectAgreement(const std::string& text, const std::function<bool(const std::string&)>& oracle) {
  const auto g = Compile(text);
  ASSERT_FALSE(g->rules.empty()) << text;
  const Sampler sampler(*g);
  std::mt19937 rng(11);
  int accepted = 0, rejected = 0;
  auto agree = [&](const std::string& s) {
    const bool ours = Matches(g, s);
    ASSERT_EQ(ours, oracle(s)) << text << "\non '" << s << "'";
    ++(ours ? accepted : rejected);
  };
  for (int i = 0; i < 300; ++i) {
    std::string s = sampler.Sample(rng);
    agree(s);
    for (int k = 0; k < 3; ++k) {
      s = Mutate(s, rng);
      agree(s);
    }
  }
  for (int i = 0; i < 300; ++i) agree(RandomString(rng, 7));
  EXPECT_GT(accepted, 0) << text;
  EXPECT_GT(rejected, 0) << text;
}

// Regular languages written as grammars, beside the regex PCRE2 reads as the same language.
const std::vector<std::pair<std::string, std::string>> kRegular = {
    {R"(root ::= "abc" | "a" [b-d]+ "x"?)", "abc|a[b-d]+x?"},
    {"root ::= item (\",\" item){2,4}\nitem ::= [a-z]{1,3}", "[a-z]{1,3}(,[a-z]{1,3}){2,4}"},
    {R"(root ::= [\u00e0-\u00ff\U0001F600-\U0001F64F]+ "\u20ac"?)", "[\\x{e0}-\\x{ff}\\x{1F600}-\\x{1F64F}]+\\x{20ac}?"},
    {R"(root ::= "\"" [^"\\\n]* "\"")", R"("[^"\\\n]*")"},
    {R"(root ::= [^a-z\u00e9]{1,4})", "[^a-z\\x{e9}]{1,4}"},
    {R"(root ::= "<" .{0,3} ">")", "<[\\x{0}-\\x{10ffff}]{0,3}>"},
    {R"(root ::= "\x41\t\n\\\"\'" "\U0001F600"? [\[\]\-]+)", "A\\t\\n\\\\\"'\\x{1F600}?[\\[\\]\\-]+"},
    {R"(root ::= ("ab" | "c")* ("d" | "e"+)?)", "(ab|c)*(d|e+)?"},
    {R"(root ::= "a"{3} "b"{2,} "c"{0,2} "d"{1})", "a{3}b{2,}c{0,2}d"},
    {R"(root ::= ("x" [0-9]{1,2}){2,3})", "(x[0-9]{1,2}){2,3}"},
    {R"(root ::= ("a" | ) "b"? | "c" "c"? | "")", "(a|)b?|cc?|"},
    {"root ::= \"a\" root | \"b\"", "a*b"},
    // Rules over several lines, comments, names with - and _, references before definitions.
    {"# a date\nroot ::= year \"-\" month-day   # the rest\n"
     "month-day ::= ( \"0\" [1-9]\n  | \"1\" [0-2] )\n  \"-\" day_\n"
     "year ::= [0-9]{4}\nday_ ::= [0-2] [0-9] | \"3\" [01]\n",
     "[0-9]{4}-(0[1-9]|1[0-2])-([0-2][0-9]|3[01])"},
};

TEST(EbnfGrammar, RegularGrammarsAcceptExactlyWhatPcre2Matches) {
  for (const auto& [text, pattern] : kRegular) {
    const Pcre pcre(pattern);
    ASSERT_TRUE(pcre.ok()) << pattern;
    ExpectAgreement(text, [&](const std::string& s) { return pcre.Matches(s); });
  }
}

// JSON, surrogate pairs in \u escapes included, as RFC 8259 has it; nlohmann's parser is the oracle.
const char* kJson = R"(
root    ::= ws value ws
value   ::= object | array | string | number | "true" | "false" | "null"
object  ::= "{" ws ( member ( ws "," ws member )* ws )? "}"
member  ::= string ws ":" ws value
array   ::= "[" ws ( value ( ws "," ws value )* ws )? "]"
string  ::= "\"" char* "\""
char    ::= [^"\\\x00-\x1f] | "\\" ( ["\\/bfnrt] | "u" code )
code    ::= [0-9a-cA-Ce-fE-F] hex hex hex | [dD] [0-7] hex hex | [dD] [89abAB] hex hex "\\u" [dD] [c-fC-F] hex hex
hex     ::= [0-9a-fA-F]
number  ::= "-"? ( "0" | [1-9] [0-9]* ) ( "." [0-9]+ )? ( [eE] [-+]? [0-9]+ )?
ws      ::= [ \t\n\r]*
)";

// nlohmann's parser read as RFC 8259's grammar: it stops at a NUL as at a C string's end (JSON text
// never holds one raw), and it refuses numbers beyond a double's range, which are grammatical.
bool JsonGrammatical(const std::string& s) {
  if (s.find('\0') != std::string::npos) return false;
  try {
    const nlohmann::json parsed = nlohmann::json::parse(s);
    return !parsed.is_discarded();
  } catch (const nlohmann::json::parse_error&) {
    return false;
  } catch (const nlohmann::json::out_of_range&) {
    return true;
  }
}

TEST(EbnfGrammar, AJsonGrammarAcceptsExactlyWhatAJsonParserAccepts) {
  ExpectAgreement(kJson, JsonGrammatical);
  const auto g = Compile(kJson);
  for (const char* ok : {R"({"a": [1, -2.5e+3, true, null, "\u00e9\ud83d\ude00"]})", " [ ] ", "0", R"("\"")"}) {
    EXPECT_TRUE(Matches(g, ok)) << ok;
  }
  for (const char* bad : {R"({"a" 1})", "[1,]", "01", R"("\ud800")", R"("\ude00")", "[", "tru"}) {
    EXPECT_FALSE(Matches(g, bad)) << bad;
  }
}

// Arithmetic expressions, judged by a recognizer written apart from any grammar: operands (numbers or
// parenthesized expressions) and operators alternate, parentheses balance.
const char* kArithmetic = R"g(
root   ::= expr
expr   ::= term (("+" | "-") term)*
term   ::= factor (("*" | "/") factor)*
factor ::= [0-9]+ | "(" expr ")"
)g";

enum class Verdict { kReject, kPrefix, kComplete };

Verdict Arithmetic(const std::string& s) {
  int depth = 0;
  bool operand = false;  // the text so far ends with a number or ')'
  char prev = 0;
  for (char c : s) {
    if (c >= '0' && c <= '9') {
      if (operand && !(prev >= '0' && prev <= '9')) return Verdict::kReject;
      operand = true;
    } else if (c == '(') {
      if (operand) return Verdict::kReject;
      ++depth;
    } else if (c == ')') {
      if (!operand || depth == 0) return Verdict::kReject;
      --depth;
    } else if (c != 0 && std::strchr("+-*/", c)) {
      if (!operand) return Verdict::kReject;
      operand = false;
    } else {
      return Verdict::kReject;
    }
    prev = c;
  }
  return operand && depth == 0 ? Verdict::kComplete : Verdict::kPrefix;
}

TEST(EbnfGrammar, AnArithmeticGrammarAcceptsExactlyWellFormedExpressions) {
  ExpectAgreement(kArithmetic, [](const std::string& s) { return Arithmetic(s) == Verdict::kComplete; });
  const auto g = Compile(kArithmetic);
  for (const char* ok : {"1", "12+3", "(1+2)*3", "((4))", "12*(3-4)/5"}) EXPECT_TRUE(Matches(g, ok)) << ok;
  for (const char* bad : {"", "1+", "(1", "1)", "()", "1++2", "-1", "(1)(2)"}) EXPECT_FALSE(Matches(g, bad)) << bad;
}

// Languages no regex has, by hand.
TEST(EbnfGrammar, ContextFreeLanguagesByHand) {
  const auto anbn = Compile(R"(root ::= "a" root "b" | "")");
  for (const char* ok : {"", "ab", "aabb", "aaabbb"}) EXPECT_TRUE(Matches(anbn, ok)) << ok;
  for (const char* bad : {"a", "b", "abab", "aab", "abb", "ba"}) EXPECT_FALSE(Matches(anbn, bad)) << bad;
  const auto palindromes = Compile(R"(root ::= "a" root "a" | "b" root "b" | "a" | "b" | "")");
  for (const char* ok : {"", "a", "aba", "abba", "babbab"}) EXPECT_TRUE(Matches(palindromes, ok)) << ok;
  for (const char* bad : {"ab", "abab", "aab", "abbaa"}) EXPECT_FALSE(Matches(palindromes, bad)) << bad;
  // Lists of up to three items, each a nested list or a digit.
  const auto lists = Compile("root ::= list\nlist ::= \"[\" (item (\",\" item){0,2})? \"]\"\nitem ::= [0-9] | list");
  for (const char* ok : {"[]", "[1]", "[1,[2,[]],3]", "[[[[]]]]"}) EXPECT_TRUE(Matches(lists, ok)) << ok;
  for (const char* bad : {"[1,2,3,4]", "[[]", "[1,]", "1", "[[1,2,3,4]]"}) EXPECT_FALSE(Matches(lists, bad)) << bad;
}

// Each mistake a text can hold is an error naming it and where it is.
TEST(EbnfGrammar, ErrorsNameTheProblemAndItsLineAndColumn) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"root ::= foo", "undefined rule 'foo' at 1:10"},
      {"root ::= \"a\"\n  | \"b\"\n  | foo", "undefined rule 'foo' at 3:5"},
      {"root ::= \"a\"\nroot ::= \"b\"", "rule 'root' is defined twice (first at 1:1) at 2:1"},
      {"a ::= \"x\"", "there is no 'root' rule"},
      {"", "there is no 'root' rule"},
      {"root ::= expr\nexpr ::= expr \"+\" \"1\" | \"1\"", "left recursion: rule 'expr' can begin with itself (expr -> expr) at 2:10"},
      {"root ::= a\na ::= b \"x\"\nb ::= \"y\" | a", "left recursion: rule 'a' can begin with itself (a -> b -> a) at 3:13"},
      {"root ::= a\na ::= b? c a \"x\" | \"y\"\nb ::= \"b\"\nc ::= \"\"", "(a -> a) at 2:12"},
      {"root ::= (\"x\"? root)? \"y\"", "(root -> root) at 1:16"},
      {"root ::= (\"a\"?)*", "a repetition without bound of what can match the empty string at 1:16"},
      {"root ::= x+\nx ::= \"a\" | \"\"", "a repetition without bound of what can match the empty string at 1:11"},
      {"root ::= \"abc", "unclosed string literal '\"' at 1:10"},
      {"root ::= [a-z", "unclosed character class '[' at 1:10"},
      {"root ::= (\"a\" | \"b\"\nx ::= \"c\"", "unclosed group '(' at 1:10"},
      {"root ::= \"a\" )", "unmatched ')' at 1:14"},
      {"root ::= \"\\q\"", "unknown escape '\\q' at 1:11"},
      {"root ::= \"\\x4\"", "a malformed escape (it takes 2 hexadecimal digits) at 1:11"},
      {"root ::= [\\u12]", "a malformed escape (it takes 4 hexadecimal digits) at 1:11"},
      {"root ::= \"\\U00110000\"", "a code point above U+10FFFF at 1:11"},
      {"root ::= \"\\ud800\"", "a UTF-16 surrogate, which is no character, at 1:11"},
      {"root ::= \"\\", "an unfinished escape at 1:11"},
      {"root ::= [z-a]", "a range out of order at 1:12"},
      {"root ::= * \"a\"", "nothing to repeat at 1:10"},
      {"root ::= \"a\" | {2}", "nothing to repeat at 1:16"},
      {"root ::= \"a\"{3,2}", "a repetition {m,n} with n below m at 1:13"},
      {"root ::= \"a\"{,2}", "expected a count in '{m}', '{m,}' or '{m,n}' at 1:13"},
      {"root ::= \"a\"{2", "unclosed repetition '{' at 1:13"},
      {"root ::= \"a\"{1001}", "a repetition count above 1000 at 1:13"},
      {"root ::= \"a\" @", "unexpected '@' at 1:14"},
      {"root ::= <[1234]>", "unexpected '<' at 1:10"},
      {"root \"a\"", "expected '::=' after the rule name 'root' at 1:6"},
      {"  ::= \"a\"", "expected a rule name ('name ::= ...') at 1:3"},
      {"root ::= \"\u00e9\" \u00e9", "unexpected '\u00e9' at 1:14"},
      {"root ::= []", "it matches no string"},
      {"root ::= a\na ::= \"x\" a", "it matches no string"},
      {"root ::= \"\xff\"", "not valid UTF-8"},
  };
  for (const auto& [text, expected] : cases) {
    Result<Grammar> g = CompileEbnf(text);
    ASSERT_FALSE(g.ok()) << text;
    EXPECT_EQ(g.status().code(), StatusCode::kInvalidArgument) << text;
    EXPECT_NE(g.status().message().find(expected), std::string::npos) << text << "\n" << g.status().message();
    EXPECT_EQ(g.status().message().rfind("grammar: ", 0), 0u) << g.status().message();
  }
}

// What can derive no string is dropped, with the rules only it reached: every rule left derives
// one, which the token mask table relies on.
TEST(EbnfGrammar, AlternativesThatDeriveNothingAreDropped) {
  const auto g = Compile("root ::= \"a\" | never | [] \"b\" | unused-by-root\nnever ::= \"x\" never\n"
                         "unused-by-root ::= never\nlonely ::= \"z\"");
  EXPECT_TRUE(Matches(g, "a"));
  EXPECT_FALSE(Matches(g, "b"));
  ASSERT_EQ(g->rules.size(), 1u);
  EXPECT_EQ(g->rules[0].alternatives.size(), 1u);
}

// Hostile texts end in an error naming the limit instead of a crash, a deep recursion or a long
// compile; repetitions nested inside each other write out to the sum of their counts, not the
// product.
TEST(EbnfGrammar, HostileTextsHitALimit) {
  std::string chain;  // 3,000 rules each beginning with the next, the last with the first
  for (int i = 0; i < 3000; ++i) chain += "r" + std::to_string(i) + " ::= r" + std::to_string((i + 1) % 3000) + "\n";
  std::string wide = "root ::=";  // 70 repetitions of 1000
  for (int i = 0; i < 70; ++i) wide += " \"ab\"{1000}";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"root ::= \"" + std::string(1 << 20, 'a') + "\"", "longer than 65536 bytes"},
      {"root ::= " + std::string(65, '(') + "\"a\"" + std::string(65, ')'), "nested deeper than 64 at 1:74"},
      {"root ::= " + std::string(5000, '(') + std::string(5000, ')'), "nested deeper than 64"},
      {"root ::= \"a\"" + std::string(5000, '?'), "nested deeper than 64"},
      {"root ::= \"a\"{99999999999999999999}", "a repetition count above 1000"},
      {"root ::= r0\n" + chain, "left recursion: rule 'r0' can begin with itself (r0 -> r1 -> r2 -> "},
      {wide, "its repetitions write out to more than 65536 elements"},
  };
  for (const auto& [text, expected] : cases) {
    Result<Grammar> g = CompileEbnf(text);
    ASSERT_FALSE(g.ok()) << text.substr(0, 40);
    EXPECT_NE(g.status().message().find(expected), std::string::npos) << text.substr(0, 40) << ": " << g.status().message();
  }
  // Just inside the limits compiles.
  EXPECT_TRUE(CompileEbnf("root ::= " + std::string(64, '(') + "\"a\"" + std::string(64, ')')).ok());
  EXPECT_TRUE(CompileEbnf("root ::= [a-z]{1000}").ok());
  const auto nested = Compile("root ::= ((((\"a\"{1000}){1000}){1000}){1000}){0,1000}");
  size_t elements = 0;
  for (const Rule& r : nested->rules) {
    for (const Sequence& seq : r.alternatives) elements += seq.size();
  }
  EXPECT_LT(elements, 10000u);
  EXPECT_TRUE(Matches(nested, ""));
  EXPECT_FALSE(Matches(nested, std::string(1000, 'a')));
}

// Repetition is right recursion: the live parse stacks stay few however long the output grows.
TEST(EbnfGrammar, RepetitionsAreRightRecursiveSoLongOutputsStayCheap) {
  const auto g = Compile("root ::= (word \" \"){0,40} word \".\"\nword ::= [a-z]+");
  GrammarMatcher m(g);
  for (int i = 0; i < 40; ++i) {
    ASSERT_TRUE(m.Accept("word "));
    EXPECT_LE(m.live_stacks(), 4);
  }
  ASSERT_TRUE(m.Accept("end."));
  EXPECT_TRUE(m.Finished());
}

// On the embedded model's byte-level BPE vocabulary, every token sequence the mask allows is a prefix
// of a sentence and EOS is allowed exactly on sentences (the oracles above judging).
TEST(EbnfGrammar, EveryAllowedTokenSequenceIsAPrefixOfASentence) {
  Result<std::shared_ptr<Tokenizer>> tokenizer =
      Tokenizer::FromFile((vt::testing::SourceRoot() / "assets/models/fortune-qwen3-7m/tokenizer.json").string());
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status().message();
  const auto vocab = std::make_shared<const TokenVocabulary>((*tokenizer)->TokenBytesTable());
  auto constrain = [&](const std::string& text) {
    Result<Grammar> g = CompileEbnf(text);
    EXPECT_TRUE(g.ok()) << g.status().message();
    return Constrain(std::move(*g), vocab).value();
  };
  WalkAllowedTokens(*constrain(kArithmetic),
                    {[](const std::string& t) { return Arithmetic(t) == Verdict::kComplete; },
                     [](const std::string& t) { return Arithmetic(t) != Verdict::kReject; }},
                    "arithmetic");
  // a^n b^n: some a's, then no more b's than a's.
  auto anbn = [](const std::string& t, bool whole) {
    const size_t a = t.find_first_not_of('a');
    const size_t as = a == std::string::npos ? t.size() : a;
    const size_t bs = t.size() - as;
    return t.find_first_not_of('b', as) == std::string::npos && (whole ? bs == as : bs <= as);
  };
  WalkAllowedTokens(*constrain(R"(root ::= "a" root "b" | "")"),
                    {[&](const std::string& t) { return anbn(t, true); }, [&](const std::string& t) { return anbn(t, false); }},
                    "a^n b^n");
  for (const auto& [text, pattern] : std::vector<std::pair<std::string, std::string>>{kRegular[1], kRegular[2], kRegular[4], kRegular[12]}) {
    const Pcre pcre(pattern);
    ASSERT_TRUE(pcre.ok()) << pattern;
    WalkAllowedTokens(*constrain(text),
                      {[&](const std::string& t) { return pcre.Matches(t); }, [&](const std::string& t) { return pcre.Prefix(t); }},
                      text);
  }
}

}  // namespace
}  // namespace vt::grammar
