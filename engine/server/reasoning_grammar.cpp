#include "engine/server/reasoning_grammar.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/server/grammar_splice.h"

namespace vt::server {
namespace {

using grammar::CharRange;
using grammar::Chars;
using grammar::Grammar;
using grammar::Ref;
using grammar::Sequence;

constexpr std::string_view kClose = "</think>";

// Every code point except `a` and `b` (which may be equal).
std::vector<CharRange> AllBut(uint32_t a, uint32_t b) {
  if (a > b) std::swap(a, b);
  std::vector<CharRange> out;
  if (a > 0) out.push_back({0, a - 1});
  if (b > a + 1) out.push_back({a + 1, b - 1});
  out.push_back({b + 1, 0x10FFFF});
  return out;
}

// Text that ends at the first "</think>": the automaton of that search as rules, state k having
// matched the tag's first k characters. Only '<' starts the tag, so a mismatch goes back to state 1
// on '<' and to state 0 otherwise. Returns the id of state 0; state 8 continues with `after`.
int32_t UntilClose(Grammar& g, int32_t after) {
  const size_t n = kClose.size();
  std::vector<int32_t> state(n);
  for (size_t k = 0; k < n; ++k) state[k] = grammar::AddRule(g, "reasoning-" + std::to_string(k));
  for (size_t k = 0; k < n; ++k) {
    const auto expected = static_cast<uint32_t>(kClose[k]);
    std::vector<Sequence>& alts = g.rules[size_t(state[k])].alternatives;
    alts.push_back({grammar::Char(expected), Ref(k + 1 == n ? after : state[k + 1])});
    if (expected != '<') alts.push_back({grammar::Char('<'), Ref(state[1])});
    alts.push_back({Chars(AllBut(expected, '<')), Ref(state[0])});
  }
  return state[0];
}

}  // namespace

Grammar AfterReasoning(const Grammar& answer, chat::ReasoningStart start) {
  if (start == chat::ReasoningStart::kAnswer) return answer;
  Grammar g;
  g.root = grammar::AddRule(g, "root");
  const int32_t answer_root = SpliceGrammar(g, answer);
  // Whitespace between the tag and the answer, as models write it ("</think>\n\n").
  const int32_t space = grammar::AddRule(g, "reasoning-space");
  g.rules[size_t(space)].alternatives = {
      {Chars({{' ', ' '}, {'\n', '\n'}, {'\t', '\t'}, {'\r', '\r'}}), Ref(space)}, {Ref(answer_root)}};
  const int32_t reasoning = UntilClose(g, space);
  if (start == chat::ReasoningStart::kInside) {
    g.rules[size_t(g.root)].alternatives = {{Ref(reasoning)}};
  } else {
    Sequence open = grammar::Literal("<think>");
    open.push_back(Ref(reasoning));
    g.rules[size_t(g.root)].alternatives = {open, {Ref(answer_root)}};
  }
  return g;
}

}  // namespace vt::server
