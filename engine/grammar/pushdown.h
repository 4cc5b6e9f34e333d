// A Grammar run as a nondeterministic pushdown automaton over bytes: a set of parse stacks (as
// llama.cpp's grammar sampler keeps them), advanced one byte at a time with UTF-8 assembled across
// token boundaries. Shared by the matcher (whole stacks, from the grammar's start) and the token
// mask table (stacks that start inside one rule with what lies below unknown).
#pragma once

#include <bitset>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/grammar/grammar.h"

namespace vt::grammar {

struct Position {
  int32_t rule = 0, alternative = 0, element = 0;
  bool operator==(const Position& o) const {
    return rule == o.rule && alternative == o.alternative && element == o.element;
  }
  bool operator<(const Position& o) const {
    if (rule != o.rule) return rule < o.rule;
    if (alternative != o.alternative) return alternative < o.alternative;
    return element < o.element;
  }
};

// The bottom of a stack that starts inside a rule with the stack below it unknown: kInContext while
// the starting rule runs, kEscaped once the input went past its end into some place that refers to
// it. When such a marker is the top, the rule that just finished is in its `alternative`.
constexpr int32_t kInContext = -1;
constexpr int32_t kEscaped = -2;

// An ambiguous grammar (a schema's anyOf of look-alike branches, nested) can multiply the live parse
// stacks at every character; past this many the input is rejected rather than let one request's
// grammar take the engine's time. A compiler whose grammars are meant to stay below it (a regex's
// automaton) checks against it.
constexpr size_t kMaxParseStacks = 4096;
// Expansion steps one character may take. A left-recursive grammar (a schema whose $ref leads back to
// itself before any character, through anyOf branches) would otherwise branch without end below the
// depth limit; past the budget its remaining branches are dropped.
constexpr int kExpandBudget = 1 << 16;

using Stack = std::vector<Position>;  // innermost rule last; empty: the sentence is complete

struct ParseState {
  std::vector<Stack> stacks;  // sorted, no duplicates
  uint32_t partial = 0;       // bits of an incomplete UTF-8 character
  int pending = 0;            // its continuation bytes still to come
  int length = 0;             // its total length in bytes
  int seen = 0;               // bytes of it so far

  bool CanEnd() const;    // a complete sentence: EOS may follow
  bool Finished() const;  // complete, and nothing may extend it
};

// After input walked from a StartAt state (or one built the same way), whether it is accepted
// whatever the unknown stack below: some stack never left the starting rule (one that finished it
// exactly counts when `finish_counts`: every rule derives a string, so every caller can go on);
// mid-character, only when no stack left it, since the character may complete only in a caller.
bool StayedInside(const ParseState& s, bool finish_counts);

class Pushdown {
 public:
  explicit Pushdown(std::shared_ptr<const Grammar> grammar);

  // Before any input.
  ParseState Start() const;
  // At `p` (a character set) inside its rule, the stack below unknown.
  ParseState StartAt(Position p) const;
  // Advances over one byte; false (and `s` unchanged) when no stack accepts it.
  bool AcceptByte(ParseState& s, uint8_t byte) const;
  // The bytes AcceptByte may accept from `s` (a superset: continuation bytes are not told apart),
  // found without stepping any stack.
  std::bitset<256> PossibleBytes(const ParseState& s) const;

  const Grammar& grammar() const { return *grammar_; }
  // The character set at the top of `stack`; the stack is neither empty nor a marker.
  const Element& Top(const Stack& stack) const;

 private:
  bool AcceptCodePoint(ParseState& s, uint32_t cp) const;
  bool AnyTopIntersects(const ParseState& s, uint32_t lo, uint32_t hi) const;
  void Expand(Stack stack, std::vector<Stack>& out, int depth, int& budget) const;
  // The stacks with a character-set top (or complete) that a marker top may continue as.
  void Escape(const Stack& marker_top, std::vector<Stack>& out, int& budget) const;
  // `stacks` with every marker top replaced by what it may continue as.
  const std::vector<Stack>& Resolved(const std::vector<Stack>& stacks, std::vector<Stack>& scratch, int& budget) const;

  std::shared_ptr<const Grammar> grammar_;
  std::vector<std::vector<Position>> references_;  // per rule, the positions that refer to it
  std::vector<bool> single_return_;                // per rule: one place it can return to
};

}  // namespace vt::grammar
