// Right-linear grammars, the shape regex_grammar.h compiles a regex to: every alternative of every
// rule is empty (a string may end there), one character set followed by a reference to the rule
// that reads the rest, or a bare reference (a nondeterministic automaton's move without input). Such
// a grammar is an automaton written as rules, and the operations here keep it one: a product with a
// length counter, and the pruning of rules from which no string can end.
#pragma once

#include <cstdint>

#include "base/status.h"
#include "engine/grammar/grammar.h"

namespace vt::grammar {

// The rules from which a string can end, renumbered, with the alternatives that lead elsewhere
// dropped: every rule derives a string (the token mask table counts on it) and no output can walk
// into a dead end. An error when the root is not among them: the grammar has no sentence.
Result<Grammar> KeepLive(const Grammar& g);

// The sentences of `g` whose length in characters (one per character set read) lies from `min` to
// `max` (-1: no upper bound). Each rule becomes the pairs (rule, characters so far) that can be
// reached: up to `max`, or saturating at `min` when there is no upper bound (past `min` the count
// no longer matters). More than `max_rules` pairs is an error naming the limit, so a long bound on
// a large automaton is refused instead of built; so is a product with no sentence.
Result<Grammar> WithLength(const Grammar& g, int64_t min, int64_t max, int64_t max_rules);

}  // namespace vt::grammar
