// Regular expression -> Grammar, for vLLM's guided_regex / structured_outputs.regex: the grammar's
// sentences are exactly the strings the whole of the regex matches (as PCRE's full match of the
// pattern anchored at both ends; syntax in regex_syntax.h). The regex becomes a deterministic
// automaton over code points (Thompson's construction, then subsets), and each automaton state one
// rule whose alternatives are a character set followed by the next state's rule: a right-linear
// grammar, so every parse stack is one frame deep and the live stacks are the current state's moves,
// whose character sets are disjoint; the token masks stay cheap however long the output.
//
// Determinizing can blow up (`(a|b)*a(a|b){20}` has 2^20 states): past its limits the rules are
// Thompson's automaton itself, epsilon moves removed, which the pushdown runs nondeterministically
// (a live stack per active state, so more stacks per step than the deterministic form's one but no
// more than the automaton's moves). Past the limits of that too the compile is an error naming them,
// never a long wait.
#pragma once

#include <string_view>

#include "base/status.h"
#include "engine/grammar/grammar.h"
#include "engine/grammar/pushdown.h"
#include "engine/grammar/regex_syntax.h"

namespace vt::grammar {

struct RegexCompileLimits {
  RegexLimits syntax;
  int64_t max_nfa_states = 20000;  // after repetitions are written out
  int64_t max_dfa_states = 4096;   // rules of the grammar
  int64_t max_work = 4'000'000;   // automaton states visited while determinizing (and again for the fallback)
  // The nondeterministic fallback's references from a closure to a state that reads a character:
  // one character expands into at most all of them, each one parse stack, so no step can outgrow
  // the pushdown's bound and silently drop a stack.
  int64_t max_nfa_references = int64_t(kMaxParseStacks);
};

Result<Grammar> CompileRegex(std::string_view pattern, const RegexCompileLimits& limits = {});

}  // namespace vt::grammar
