// GBNF text -> Grammar, for vLLM's guided_grammar / structured_outputs.grammar and `vt generate
// --grammar`: the grammar's sentences are exactly the strings the text's `root` rule derives
// (syntax in ebnf_syntax.h). Each rule becomes a rule of the same name; a group becomes a helper
// rule of its alternatives, and repetition right recursion: x* is `r ::= x r | ""`, x{m,n} is m
// copies of x then a chain of n-m optional ones, so the compiled size grows with the counts, never
// with their product.
//
// The engine expands rules before it reads a character, so a rule that can begin with itself would
// expand forever: left recursion, direct or through other rules and through what can be empty in
// front (`a ::= b? a "x"`), is an error naming the rules and the reference that closes the cycle,
// as is repeating without bound what can match the empty string (`("a"?)*`). Alternatives that
// can derive no string are dropped, and a grammar whose root derives none is an error.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/status.h"
#include "engine/grammar/ebnf_syntax.h"
#include "engine/grammar/grammar.h"

namespace vt::grammar {

struct EbnfCompileLimits {
  EbnfLimits syntax;
  int64_t max_elements = 65536;  // in the compiled rules, repetitions written out
};

Result<Grammar> CompileEbnf(std::string_view text, const EbnfCompileLimits& limits = {});

}  // namespace vt::grammar
