// A grammar's text in GBNF, llama.cpp's EBNF dialect (the one vLLM's guided_grammar and XGrammar
// take), parsed into rules of expression trees for the EBNF front end of the grammar engine:
//
//   root  ::= "(" list? ")"        # a rule: a name, ::= and alternatives; `root` is the start
//   list  ::= item ("," item){0,9} # may continue on the following lines: a rule ends where the
//   item  ::= [a-z]+ | "\u00e9" .   #   next `name ::=` starts (or at the end of the text)
//
// Names are [a-zA-Z0-9_-]+ and may be used before their rule. Terminals are string literals "..."
// and character classes [...] (ranges a-z, negation [^...]) with the escapes \n \r \t \\ \" \' \[
// \] \- \xHH \uHHHH \UHHHHHHHH, and `.`, any character. Expressions group with ( ), alternate with
// | and repeat with the postfix * + ? {m} {m,} {m,n}; # starts a comment to the end of the line.
// Everything is over Unicode code points of UTF-8 text.
//
// Errors are InvalidArgument naming the problem and its line:column (1-based, in code points).
// The parser bounds what a hostile text can ask for: its length, its nesting depth (groups and
// repetitions) and its repetition counts.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "engine/grammar/grammar.h"

namespace vt::grammar {

struct TextPosition {
  int32_t line = 1, column = 1;
};

std::string ToString(TextPosition p);  // "line:column"

struct EbnfNode {
  enum Kind {
    kChars,      // one code point out of `ranges` (normalized; empty: matches nothing)
    kLiteral,    // the code points `text`, in order (empty: matches the empty string)
    kReference,  // the rule `rule` (an index into EbnfSyntax::rules)
    kSequence,   // `children` one after another (none: the empty string)
    kAlternate,  // one of `children`
    kRepeat,     // children[0], from `min` to `max` times (max -1: unbounded)
  } kind = kSequence;
  std::vector<CharRange> ranges;
  std::vector<uint32_t> text;
  int32_t rule = -1;
  std::vector<EbnfNode> children;
  int64_t min = 0, max = 0;
  TextPosition at;  // where it starts in the text
};

struct EbnfRule {
  std::string name;
  EbnfNode body;
  TextPosition at;  // of its name where it is defined (until then, where it is first used)
};

struct EbnfSyntax {
  std::vector<EbnfRule> rules;  // in the order the text defines them
  int32_t root = -1;
};

struct EbnfLimits {
  size_t max_text_bytes = 64 * 1024;
  int max_depth = 64;         // nested groups and repetitions
  int64_t max_repeat = 1000;  // largest count in {m}, {m,}, {m,n}
};

// Every reference names a defined rule, no rule is defined twice and `root` is one of them; what
// the rules mean together (left recursion, an empty language) is CompileEbnf's to judge.
Result<EbnfSyntax> ParseEbnf(std::string_view text, const EbnfLimits& limits = {});

}  // namespace vt::grammar
