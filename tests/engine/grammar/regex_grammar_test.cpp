// The regex front end of the grammar engine: for many patterns the compiled grammar accepts exactly
// the strings PCRE2 matches in full (on strings sampled from the grammar, their mutations and random
// strings), every token sequence the mask allows on the embedded model's real tokenizer is a prefix
// PCRE2 can still complete, and hostile patterns are errors, promptly.
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/grammar/grammar_constraint.h"
#include "engine/grammar/grammar_matcher.h"
#include "engine/grammar/regex_grammar.h"
#include "engine/tokenizer/tokenizer.h"
#include "engine/tokenizer/utf8.h"
#include "tests/source_root.h"

namespace vt::grammar {
namespace {

// PCRE2 matching the whole subject: anchored at both ends, UTF-8, $ only at the very end, \d \w \s
// ASCII (no UCP), as regex_syntax.h defines them. PCRE2 refuses partial matching with
// PCRE2_ENDANCHORED, so prefixes are tried on the pattern followed by \z.
class Pcre {
 public:
  explicit Pcre(const std::string& pattern)
      : whole_(Code(pattern, PCRE2_ENDANCHORED)), prefix_(Code("(?:" + pattern + ")\\z", 0)) {
    match_ = pcre2_match_data_create(1, nullptr);
  }
  ~Pcre() {
    pcre2_match_data_free(match_);
    pcre2_code_free(whole_);
    pcre2_code_free(prefix_);
  }
  bool ok() const { return whole_ != nullptr && prefix_ != nullptr; }
  bool Matches(const std::string& s) const { return Run(whole_, s, 0) >= 0; }
  // `s` can still be completed into a match: a match, or a hard partial one. PCRE2 refuses a
  // subject that ends inside a character, so such an end is left out of the check.
  bool Prefix(const std::string& s) const {
    const std::string complete = s.substr(0, CompleteUtf8Prefix(s));
    if (complete.empty()) return true;
    const int rc = Run(prefix_, complete, PCRE2_PARTIAL_HARD);
    return rc >= 0 || rc == PCRE2_ERROR_PARTIAL;
  }

 private:
  static pcre2_code* Code(const std::string& pattern, uint32_t options) {
    int error = 0;
    PCRE2_SIZE offset = 0;
    return pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                         PCRE2_UTF | PCRE2_ANCHORED | PCRE2_DOLLAR_ENDONLY | options, &error, &offset, nullptr);
  }
  int Run(pcre2_code* code, const std::string& s, uint32_t options) const {
    return pcre2_match(code, reinterpret_cast<PCRE2_SPTR>(s.data()), s.size(), 0, options, match_, nullptr);
  }
  pcre2_code* whole_;
  pcre2_code* prefix_;
  pcre2_match_data* match_ = nullptr;
};

std::shared_ptr<const Grammar> Compile(const std::string& pattern) {
  Result<Grammar> g = CompileRegex(pattern);
  EXPECT_TRUE(g.ok()) << pattern << ": " << g.status().message();
  return std::make_shared<const Grammar>(g.ok() ? std::move(*g) : Grammar{});
}

bool Matches(const std::shared_ptr<const Grammar>& g, const std::string& text) {
  GrammarMatcher m(g);
  return m.Accept(text) && m.CanEnd();
}

// A code point of `ranges`, most often near an end of one of them (where off-by-ones hide).
uint32_t Pick(const std::vector<CharRange>& ranges, std::mt19937& rng) {
  const CharRange& r = ranges[rng() % ranges.size()];
  const uint32_t span = r.hi - r.lo;
  switch (rng() % 4) {
    case 0: return r.lo;
    case 1: return r.hi;
    default: return r.lo + uint32_t(rng() % (uint64_t(span) + 1));
  }
}

// A string of the grammar's language, by a random walk of its right-linear rules; empty when the walk
// ran out of steps before it could end.
std::optional<std::string> Sample(const Grammar& g, std::mt19937& rng) {
  std::string out;
  int32_t rule = g.root;
  for (int steps = 0; steps < 64; ++steps) {
    const std::vector<Sequence>& alts = g.rules[size_t(rule)].alternatives;
    const Sequence& seq = alts[rng() % alts.size()];
    if (seq.empty()) return out;
    AppendUtf8(char32_t(Pick(seq[0].ranges, rng)), &out);
    rule = seq[1].rule;
  }
  return std::nullopt;
}

const std::vector<std::string> kAlphabet = {"a", "b", "c", "x", "z", "A", "Z", "0", "5", "9", "_", "-", " ", "\t",
                                            "\n", ".", "{", "}", "\"", ":", ",", "@", "\xc3\xa9", "\xe2\x82\xac",
                                            "\xf0\x9f\x98\x80", "\x7f", std::string(1, '\0')};

std::string Mutate(std::string s, std::mt19937& rng) {
  std::vector<std::pair<char32_t, size_t>> cps = DecodeUtf8(s);
  const size_t at = cps.empty() ? 0 : rng() % (cps.size() + 1);
  const size_t byte = at < cps.size() ? cps[at].second : s.size();
  const std::string& c = kAlphabet[rng() % kAlphabet.size()];
  const size_t next = at + 1 < cps.size() ? cps[at + 1].second : s.size();
  switch (rng() % 3) {
    case 0: return s.insert(byte, c);
    case 1: return at < cps.size() ? s.erase(byte, next - byte) : s;
    default: return at < cps.size() ? s.replace(byte, next - byte, c) : s + c;
  }
}

const std::vector<std::string> kPatterns = {
    "abc", "a|b|cd", "(ab)*c", "a+b?", "a{3}", "a{2,}", "a{2,4}b{0,1}", "(a|bc){1,3}", "[a-c]+x",
    "[^a-c]{2}", "[-a]", "[a-]", "[]a]", "[^]a]", ".", ".*", "\\d+", "\\D\\w\\W", "\\s\\S", "[\\d_]+",
    "[^\\w\\s]", "x\\.y\\*\\(\\)", "\\x41\\x{e9}\\n\\t", "(?:ab|a)(?:bc|c)", "(?<year>\\d{4})-(?P<m>\\d\\d)",
    "(a*)*b", "(a?){3}a{3}", "(|a)+", "()", "^abc$", "^(a|^b)c$", "a$|b", "(a$)?", "$^", "a*?b+?c??",
    "\xc3\xa9+\xf0\x9f\x98\x80?", "[\xc3\xa0-\xc3\xbf]{1,2}", "[^\xc3\xa9]", "\\{\"k\": \\d{1,3}\\}",
    "{\"a\"}", "a{,", "[A-Z][a-z]{2,8}( [A-Z][a-z]{2,8})?", "(\\+|-)?\\d+(\\.\\d+)?([eE][+-]?\\d+)?",
    "[\\x00-\\x1f]", "(a|b)*a(a|b){3}", "\\w+@\\w+\\.(com|org)", "(((a)))b|[bc]{2}", "\\0\\x7f"};

TEST(RegexGrammar, AcceptsExactlyWhatPcre2Matches) {
  std::mt19937 rng(7);
  for (const std::string& pattern : kPatterns) {
    const Pcre pcre(pattern);
    ASSERT_TRUE(pcre.ok()) << pattern;
    const auto g = Compile(pattern);
    int accepted = 0, rejected = 0;
    auto agree = [&](const std::string& s) {
      const bool ours = Matches(g, s);
      ASSERT_EQ(ours, pcre.Matches(s)) << "pattern /" << pattern << "/ on '" << s << "'";
      ++(ours ? accepted : rejected);
    };
    for (int i = 0; i < 300; ++i) {
      const std::optional<std::string> s = Sample(*g, rng);
      if (!s) continue;
      agree(*s);
      std::string m = *s;
      for (int k = 0; k < 3; ++k) {
        m = Mutate(m, rng);
        agree(m);
      }
    }
    for (int i = 0; i < 300; ++i) {
      std::string s;
      for (size_t n = rng() % 8; n > 0; --n) s += kAlphabet[rng() % kAlphabet.size()];
      agree(s);
    }
    EXPECT_GT(accepted, 0) << pattern;
    EXPECT_GT(rejected, 0) << pattern;
  }
}

// What the pattern may not hold is an error naming the construct and where it is.
TEST(RegexGrammar, RefusesWhatItCannotCompileByNameAndOffset) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"a(?=b)", "lookahead '(?=' at offset 1"},
      {"a(?!b)", "lookahead '(?!' at offset 1"},
      {"(?<=a)b", "lookbehind '(?<=' at offset 0"},
      {"(?<!a)b", "lookbehind '(?<!' at offset 0"},
      {"(a)\\1", "backreference '\\1' at offset 3"},
      {"(?P<x>a)(?P=x)", "backreference '(?P=' at offset 8"},
      {"(?<x>a)\\k<x>", "backreference '\\k' at offset 7"},
      {"\\bword", "word boundary '\\b' at offset 0"},
      {"a++", "possessive quantifier at offset 1"},
      {"(?>a)", "atomic group '(?>' at offset 0"},
      {"(?i)a", "group construct '(?i' at offset 0"},
      {"\\p{L}", "Unicode property '\\p' at offset 0"},
      {"[[:alpha:]]", "POSIX class '[:' at offset 1"},
      {"a{,3}", "'{,n}' at offset 1"},
      {"ab\\Z", "'\\Z' at offset 2"},
      {"(ab", "unclosed group '(' at offset 0"},
      {"ab)", "unmatched ')' at offset 2"},
      {"[ab", "unclosed character class '[' at offset 0"},
      {"*a", "nothing to repeat at offset 0"},
      {"a|?", "nothing to repeat at offset 2"},
      {"a**", "nothing to repeat at offset 2"},
      {"^*", "nothing to repeat at offset 1"},
      {"[z-a]", "a range out of order at offset 2"},
      {"[\\d-z]", "a range with a class escape as an end at offset 3"},
      {"a{3,2}", "n below m at offset 1"},
      {"\\q", "unknown escape '\\q' at offset 0"},
      {"ab\\", "a trailing backslash at offset 2"},
      {"\\x{110000}", "above U+10FFFF at offset 0"},
      {"\\x{d800}", "surrogate"},
      {"\\01", "octal escape at offset 0"},
      {"[\\b]", "'\\b' in a class at offset 1"},
      {"[^\\s\\S]", "it matches no string"},
      {"a^b", "it matches no string"},
      {"\xff", "not valid UTF-8"},
  };
  for (const auto& [pattern, expected] : cases) {
    Result<Grammar> g = CompileRegex(pattern);
    ASSERT_FALSE(g.ok()) << pattern;
    EXPECT_EQ(g.status().code(), StatusCode::kInvalidArgument) << pattern;
    EXPECT_NE(g.status().message().find(expected), std::string::npos) << pattern << ": " << g.status().message();
  }
}

// Hostile patterns end in an error naming the limit instead of a crash, a deep recursion or a long
// compile: each of these would otherwise ask for millions of states or stack frames.
TEST(RegexGrammar, HostilePatternsHitALimit) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {std::string(20000, 'a'), "longer than 16384 bytes"},
      {std::string(65, '(') + "a" + std::string(65, ')'), "groups nested deeper than 64"},
      {std::string(5000, '(') + std::string(5000, ')'), "groups nested deeper than 64"},
      {"a{1001}", "repetition count above 1000"},
      {"a{99999999999999999999}", "repetition count above 1000"},
      {"(a{1000}){1000}", "more than 20000 automaton states"},
      {"((((a{100}){100}){100}){100}){100}", "more than 20000 automaton states"},
      {"(a|b)*a(a|b){20}", "more than 4096 states"},
      {"(.*,){1000}(.*;){1000}x", "determinizing it takes more than"},
  };
  for (const auto& [pattern, expected] : cases) {
    Result<Grammar> g = CompileRegex(pattern);
    ASSERT_FALSE(g.ok()) << pattern.substr(0, 40);
    EXPECT_NE(g.status().message().find(expected), std::string::npos)
        << pattern.substr(0, 40) << ": " << g.status().message();
  }
  // Just inside the limits compiles.
  EXPECT_TRUE(CompileRegex(std::string(64, '(') + "a" + std::string(64, ')')).ok());
  EXPECT_TRUE(CompileRegex("[a-z]{1000}").ok());
}

// The grammar is the automaton written out as rules: the parse stacks are the current state's
// moves, the same few after every repetition however long the output, so the token masks stay cheap.
TEST(RegexGrammar, TheStacksDoNotGrowWithTheOutput) {
  const auto g = Compile("(\\w+ ){0,40}\\w+\\.");
  GrammarMatcher m(g);
  for (int i = 0; i < 40; ++i) {
    ASSERT_TRUE(m.Accept("word "));
    EXPECT_EQ(m.live_stacks(), 1);  // only \w may follow a space
  }
  ASSERT_TRUE(m.Accept("end."));
  EXPECT_TRUE(m.Finished());
}

// On the embedded model's byte-level BPE vocabulary: along random walks that pick among the tokens the
// mask allows, the text so far is always a prefix PCRE2 can complete into a match, a match whenever
// the grammar may end, and the table's mask equals a walk of the whole vocabulary.
TEST(RegexGrammar, EveryAllowedTokenSequenceIsAPrefixOfAMatch) {
  Result<std::shared_ptr<Tokenizer>> tokenizer =
      Tokenizer::FromFile((vt::testing::SourceRoot() / "assets/models/fortune-qwen3-7m/tokenizer.json").string());
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status().message();
  const auto vocab = std::make_shared<const TokenVocabulary>((*tokenizer)->TokenBytesTable());
  for (const char* pattern :
       {"\\d{3}-\\d{4}", "(yes|no|maybe)", "[A-Z][a-z]{2,8}( [A-Z][a-z]{2,8}){0,2}",
        "\\{\"name\": \"\\w{1,10}\", \"age\": \\d{1,3}\\}", "(\xc3\xa9|\xc3\xbc|\xf0\x9f\x98\x80| )+x?",
        "[^\\n\"]{0,20}\"", "(the|a) [a-z]+( [a-z]+)*\\.", ".{1,12}"}) {
    const Pcre pcre(pattern);
    ASSERT_TRUE(pcre.ok()) << pattern;
    Result<Grammar> g = CompileRegex(pattern);
    ASSERT_TRUE(g.ok()) << pattern << ": " << g.status().message();
    const std::shared_ptr<const GrammarConstraint> c = Constrain(std::move(*g), vocab).value();
    std::mt19937 rng(3);
    int steps = 0, ended = 0;
    for (int walk = 0; walk < 30; ++walk) {
      GrammarMatcher m(c->grammar);
      std::string text;
      for (int step = 0; step < 40; ++step, ++steps) {
        TokenBitmask walked, tabled;
        m.AllowedTokens(*vocab, &walked);
        m.AllowedTokens(*vocab, &tabled, c->masks.get());
        ASSERT_EQ(walked.words(), tabled.words()) << pattern << ", walk " << walk << ", step " << step;
        std::vector<int32_t> choices;
        for (int64_t id = 0; id < walked.size(); ++id) {
          if (walked.Test(id)) choices.push_back(int32_t(id));
        }
        if (m.CanEnd()) {
          ASSERT_TRUE(pcre.Matches(text)) << pattern << ": '" << text << "'";
          if (choices.empty() || rng() % 4 == 0) {
            ++ended;
            break;
          }
        }
        ASSERT_FALSE(choices.empty()) << pattern << ": a dead end after '" << text << "'";
        const int32_t token = choices[rng() % choices.size()];
        ASSERT_TRUE(m.Accept(vocab->bytes(token)));
        text += vocab->bytes(token);
        ASSERT_TRUE(pcre.Prefix(text)) << pattern << ": '" << text << "' cannot become a match";
      }
    }
    EXPECT_GT(ended, 0) << pattern;
    EXPECT_GT(steps, 30) << pattern;
  }
}

}  // namespace
}  // namespace vt::grammar
