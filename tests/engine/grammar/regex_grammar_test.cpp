// The regex front end of the grammar engine: for many patterns the compiled grammar accepts exactly
// the strings PCRE2 matches in full (on strings sampled from the grammar, their mutations and random
// strings), every token sequence the mask allows on the embedded model's real tokenizer is a prefix
// PCRE2 can still complete, and hostile patterns are errors, promptly.
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
#include "tests/engine/grammar/allowed_token_walks.h"
#include "tests/engine/grammar/pcre_full_match.h"
#include "tests/engine/grammar/random_strings.h"
#include "tests/engine/grammar/sentence_match.h"
#include "tests/source_root.h"

namespace vt::grammar {
namespace {

std::shared_ptr<const Grammar> Compile(const std::string& pattern) { return Shared(CompileRegex(pattern), pattern); }

// A string of the grammar's language, by a random walk of its right-linear rules (a bare reference
// reads nothing); empty when the walk ran out of steps before it could end.
std::optional<std::string> Sample(const Grammar& g, std::mt19937& rng) {
  std::string out;
  int32_t rule = g.root;
  for (int steps = 0; steps < 256; ++steps) {
    const std::vector<Sequence>& alts = g.rules[size_t(rule)].alternatives;
    const Sequence& seq = alts[rng() % alts.size()];
    if (seq.empty()) return out;
    if (seq.size() == 2) AppendUtf8(char32_t(Pick(seq[0].ranges, rng)), &out);
    rule = seq.back().rule;
  }
  return std::nullopt;
}

// Whether the grammar agrees with PCRE2 on strings sampled from it, their mutations, random strings
// and random strings over `letters` (where the pattern's own characters make matches likely).
void ExpectAgreesWithPcre2(const std::string& pattern, const std::string& letters, std::mt19937& rng) {
  const Pcre pcre(pattern);
  ASSERT_TRUE(pcre.ok()) << pattern;
  const auto g = Shared(CompileRegex(pattern), pattern);
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
  for (int i = 0; i < 300; ++i) agree(RandomString(rng, 7));
  for (int i = 0; i < 300 && !letters.empty(); ++i) {
    std::string s;
    for (size_t n = rng() % 40; n > 0; --n) s += letters[rng() % letters.size()];
    agree(s);
  }
  EXPECT_GT(accepted, 0) << pattern;
  EXPECT_GT(rejected, 0) << pattern;
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
  for (const std::string& pattern : kPatterns) ExpectAgreesWithPcre2(pattern, "", rng);
}

// Patterns whose deterministic automaton is past the bound of 4,096 states (each refused with only
// that bound), written out as their nondeterministic automaton: fewer rules than the bound, and
// still exactly PCRE2's matches.
const std::vector<std::pair<std::string, std::string>> kNondeterministic = {
    {"(a|b)*a(a|b){20}", "ab"},
    {"[0-9a-f]*f[0-9a-f]{15}", "0f9a"},
    {"^(x|y|^z)*x(x|y){12}$", "xyz"},
    {"(a[ab]{14}c|b[ab]{14}d|[ab]*a[ab]{12})+", "abcd"},
    {"[\\w@]*@[\\w@]{13}(\\.(com|org))?", "a@.comrg"}};

TEST(RegexGrammar, PastTheDeterministicBoundTheAutomatonAcceptsExactlyWhatPcre2Matches) {
  std::mt19937 rng(11);
  RegexCompileLimits deterministic_only;
  deterministic_only.max_nfa_references = 0;
  for (const auto& [pattern, letters] : kNondeterministic) {
    Result<Grammar> refused = CompileRegex(pattern, deterministic_only);
    ASSERT_FALSE(refused.ok()) << pattern;
    EXPECT_NE(refused.status().message().find("more than 4096 states"), std::string::npos)
        << pattern << ": " << refused.status().message();
    Result<Grammar> g = CompileRegex(pattern);
    ASSERT_TRUE(g.ok()) << pattern << ": " << g.status().message();
    EXPECT_LT(g->rules.size(), 400u) << pattern;
    ExpectAgreesWithPcre2(pattern, letters, rng);
  }
}

// A pattern whose deterministic automaton fits is written out as that automaton: (a|b)*a(a|b){3}
// has one state per last four characters, 16 rules, each with a move on a and one on b.
TEST(RegexGrammar, TheDeterministicAutomatonWhereItFits) {
  const auto g = Compile("(a|b)*a(a|b){3}");
  ASSERT_EQ(g->rules.size(), 16u);
  for (const Rule& r : g->rules) {
    for (const Sequence& seq : r.alternatives) EXPECT_NE(seq.size(), 1u) << "a bare reference in " << r.name;
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
      {"(.*,){1000}(.*;){1000}x(c*){200}",
       "determinizing it takes more than 4000000 steps; as a nondeterministic one it has more than 4096 moves"},
      {"(a|b)*a(a|b){20}(c*){200}d", "more than 4096 states; as a nondeterministic one it has more than 4096 moves"},
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
// mask allows, the text so far is always a prefix PCRE2 can complete into a match, a match exactly
// where the grammar may end, and the table's mask equals a walk of the whole vocabulary.
TEST(RegexGrammar, EveryAllowedTokenSequenceIsAPrefixOfAMatch) {
  Result<std::shared_ptr<Tokenizer>> tokenizer =
      Tokenizer::FromFile((vt::testing::SourceRoot() / "assets/models/fortune-qwen3-7m/tokenizer.json").string());
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status().message();
  const auto vocab = std::make_shared<const TokenVocabulary>((*tokenizer)->TokenBytesTable());
  for (const char* pattern :
       {"\\d{3}-\\d{4}", "(yes|no|maybe)", "[A-Z][a-z]{2,8}( [A-Z][a-z]{2,8}){0,2}",
        "\\{\"name\": \"\\w{1,10}\", \"age\": \\d{1,3}\\}", "(\xc3\xa9|\xc3\xbc|\xf0\x9f\x98\x80| )+x?",
        "[^\\n\"]{0,20}\"", "(the|a) [a-z]+( [a-z]+)*\\.", ".{1,12}", "(a|b)*a(a|b){20}",
        "[0-9a-f]*f[0-9a-f]{15}", "^(x|y|^z)*x(x|y){12}$", "(a[ab]{14}c|b[ab]{14}d|[ab]*a[ab]{12})+",
        "[\\w@]*@[\\w@]{13}(\\.(com|org))?", ".*a.{20}"}) {
    const Pcre pcre(pattern);
    ASSERT_TRUE(pcre.ok()) << pattern;
    Result<Grammar> g = CompileRegex(pattern);
    ASSERT_TRUE(g.ok()) << pattern << ": " << g.status().message();
    const std::shared_ptr<const GrammarConstraint> c = Constrain(std::move(*g), vocab).value();
    WalkAllowedTokens(*c, {[&](const std::string& t) { return pcre.Matches(t); },
                           [&](const std::string& t) { return pcre.Prefix(t); }},
                      pattern);
  }
}

}  // namespace
}  // namespace vt::grammar
