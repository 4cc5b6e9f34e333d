// Right-linear grammars: the length product accepts exactly the sentences of the right lengths (every
// string over a small alphabet up to a length, against the automaton alone), stays right-linear with
// every rule live, and a product past its limit or with no sentence is an error.
#include "engine/grammar/right_linear.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/grammar/grammar_matcher.h"
#include "engine/grammar/regex_grammar.h"

namespace vt::grammar {
namespace {

bool Matches(const std::shared_ptr<const Grammar>& g, const std::string& text) {
  GrammarMatcher m(g);
  return m.Accept(text) && m.CanEnd();
}

std::shared_ptr<const Grammar> Share(Result<Grammar> g) {
  EXPECT_TRUE(g.ok()) << g.status().message();
  return std::make_shared<const Grammar>(g.ok() ? std::move(*g) : Grammar{});
}

// Every string over {a, b} of up to `longest` characters.
std::vector<std::string> AllStrings(size_t longest) {
  std::vector<std::string> out = {""};
  for (size_t i = 0; out[i].size() < longest; ++i) {
    for (char c : {'a', 'b'}) out.push_back(out[i] + c);
  }
  return out;
}

// A live right-linear grammar: each alternative empty or a character set and a reference, and each
// rule reaching an end (so nothing a matcher allows can lead nowhere).
void ExpectLiveRightLinear(const Grammar& g) {
  std::vector<bool> ends(g.rules.size(), false);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t r = 0; r < g.rules.size(); ++r) {
      for (const Sequence& seq : g.rules[r].alternatives) {
        ASSERT_TRUE(seq.empty() || (seq.size() == 2 && seq[0].kind == Element::kChars && seq[1].kind == Element::kRule))
            << g.rules[r].name;
        if (!ends[r] && (seq.empty() || ends[size_t(seq[1].rule)])) ends[r] = changed = true;
      }
    }
  }
  for (size_t r = 0; r < g.rules.size(); ++r) EXPECT_TRUE(ends[r]) << g.rules[r].name << " reaches no end";
}

TEST(RightLinear, WithLengthKeepsExactlyTheSentencesOfThoseLengths) {
  struct Case {
    const char* pattern;
    int64_t min, max;
  };
  const std::vector<std::string> strings = AllStrings(9);
  for (const Case& c : {Case{"(a|b)*", 2, 5}, Case{"a*b(ab)*", 0, 4}, Case{"(a|b)*aa(a|b)*", 4, -1},
                        Case{"b*(ab*ab*)*", 3, 3}, Case{"(ab|ba|a)+", 1, 7}, Case{"(a|b)*", 0, 0}}) {
    const std::string label = std::string(c.pattern) + " {" + std::to_string(c.min) + "," + std::to_string(c.max) + "}";
    Result<Grammar> re = CompileRegex(c.pattern);
    ASSERT_TRUE(re.ok()) << label;
    const auto plain = std::make_shared<const Grammar>(*re);
    Result<Grammar> product = WithLength(*re, c.min, c.max, 4096);
    ASSERT_TRUE(product.ok()) << label << ": " << product.status().message();
    ExpectLiveRightLinear(*product);
    const auto bounded = std::make_shared<const Grammar>(std::move(*product));
    int accepted = 0;
    for (const std::string& s : strings) {
      const auto n = int64_t(s.size());
      const bool fits = n >= c.min && (c.max < 0 || n <= c.max);
      EXPECT_EQ(Matches(bounded, s), Matches(plain, s) && fits) << label << ": '" << s << "'";
      accepted += Matches(bounded, s) ? 1 : 0;
    }
    EXPECT_GT(accepted, 0) << label;
  }
}

// Without an upper bound the count saturates at the lower one: the product is no larger for a long
// string than for a short one, and accepts strings far past the bound.
TEST(RightLinear, NoUpperBoundSaturatesAtTheLowerOne) {
  Result<Grammar> re = CompileRegex("(a|b)*");
  ASSERT_TRUE(re.ok());
  Result<Grammar> product = WithLength(*re, 3, -1, 4096);
  ASSERT_TRUE(product.ok()) << product.status().message();
  EXPECT_LE(product->rules.size(), 4 * re->rules.size());
  const auto g = std::make_shared<const Grammar>(std::move(*product));
  EXPECT_TRUE(Matches(g, std::string(5000, 'a')));
  EXPECT_FALSE(Matches(g, "ab"));
}

TEST(RightLinear, AProductPastItsLimitOrWithoutSentencesIsAnError) {
  Result<Grammar> many = CompileRegex("(a|b)*a{50}(a|b)*");
  ASSERT_TRUE(many.ok()) << many.status().message();
  Result<Grammar> big = WithLength(*many, 0, 1000, 4096);
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.status().message().find("more than 4096 states"), std::string::npos) << big.status().message();
  Result<Grammar> three = CompileRegex("abc");
  ASSERT_TRUE(three.ok());
  Result<Grammar> none = WithLength(*three, 0, 2, 4096);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("no string of those lengths"), std::string::npos) << none.status().message();
  EXPECT_TRUE(WithLength(*three, 3, 3, 4096).ok());
}

TEST(RightLinear, KeepLiveDropsRulesThatReachNoEnd) {
  Grammar g;
  const int32_t start = AddRule(g, "start"), dead = AddRule(g, "dead"), end = AddRule(g, "end");
  g.rules[size_t(start)].alternatives = {{Char('a'), Ref(dead)}, {Char('b'), Ref(end)}};
  g.rules[size_t(dead)].alternatives = {{Char('a'), Ref(dead)}};
  g.rules[size_t(end)].alternatives = {{}};
  g.root = start;
  Result<Grammar> live = KeepLive(g);
  ASSERT_TRUE(live.ok()) << live.status().message();
  ASSERT_EQ(live->rules.size(), 2u);
  ExpectLiveRightLinear(*live);
  const auto shared = Share(std::move(live));
  EXPECT_TRUE(Matches(shared, "b"));
  GrammarMatcher m(shared);
  EXPECT_FALSE(m.Accept("a"));  // the dead branch is gone, not merely unable to end
  g.rules[size_t(start)].alternatives.pop_back();
  EXPECT_FALSE(KeepLive(g).ok());
}

}  // namespace
}  // namespace vt::grammar
