#include "engine/grammar/pushdown.h"

#include <algorithm>

namespace vt::grammar {

namespace {

// Expansion through rule references nests at most this deep before a character is consumed; a
// grammar that goes deeper (left recursion) gets no stack rather than a stack overflow.
constexpr int kMaxExpandDepth = 256;

bool IsMarker(const Stack& s) { return !s.empty() && s.back().rule < 0; }

void SortUnique(std::vector<Stack>& stacks) {
  std::sort(stacks.begin(), stacks.end());
  stacks.erase(std::unique(stacks.begin(), stacks.end()), stacks.end());
}

}  // namespace

bool ParseState::CanEnd() const {
  return pending == 0 && std::any_of(stacks.begin(), stacks.end(), [](const Stack& s) { return s.empty(); });
}

bool ParseState::Finished() const {
  return pending == 0 && std::all_of(stacks.begin(), stacks.end(), [](const Stack& s) { return s.empty(); });
}

bool StayedInside(const ParseState& s, bool finish_counts) {
  auto inside = [](const Stack& stack) { return !stack.empty() && stack.front().rule == kInContext; };
  auto running = [](const Stack& stack) { return stack.back().rule >= 0; };
  if (s.pending == 0) {
    return std::any_of(s.stacks.begin(), s.stacks.end(),
                       [&](const Stack& stack) { return inside(stack) && (finish_counts || running(stack)); });
  }
  return std::all_of(s.stacks.begin(), s.stacks.end(),
                     [&](const Stack& stack) { return inside(stack) && running(stack); });
}

Pushdown::Pushdown(std::shared_ptr<const Grammar> grammar)
    : grammar_(std::move(grammar)), references_(grammar_->rules.size()) {
  for (size_t r = 0; r < grammar_->rules.size(); ++r) {
    const Rule& rule = grammar_->rules[r];
    for (size_t a = 0; a < rule.alternatives.size(); ++a) {
      for (size_t e = 0; e < rule.alternatives[a].size(); ++e) {
        const Element& element = rule.alternatives[a][e];
        if (element.kind == Element::kRule) {
          references_[size_t(element.rule)].push_back(
              {static_cast<int32_t>(r), static_cast<int32_t>(a), static_cast<int32_t>(e)});
        }
      }
    }
  }
  // A reference that ends its sequence returns wherever its caller returns (it replaced the caller's
  // frame), so a rule's returns are its other references and, through those tail ones, their rules'.
  single_return_.resize(grammar_->rules.size());
  for (size_t r = 0; r < grammar_->rules.size(); ++r) {
    std::vector<bool> visited(grammar_->rules.size(), false);
    std::vector<int32_t> todo = {static_cast<int32_t>(r)};
    visited[r] = true;
    size_t returns = 0;
    while (!todo.empty()) {
      const int32_t rule = todo.back();
      todo.pop_back();
      if (rule == grammar_->root) ++returns;  // the end of the sentence is a place to return to
      for (const Position& site : references_[size_t(rule)]) {
        const bool tail = size_t(site.element) + 1 == grammar_->rules[size_t(site.rule)].alternatives[size_t(site.alternative)].size();
        if (!tail) {
          ++returns;
        } else if (!visited[size_t(site.rule)]) {
          visited[size_t(site.rule)] = true;
          todo.push_back(site.rule);
        }
      }
    }
    single_return_[r] = returns == 1 && r != size_t(grammar_->root);
  }
}

ParseState Pushdown::Start() const {
  ParseState s;
  const Rule& root = grammar_->rules[size_t(grammar_->root)];
  int budget = kExpandBudget;
  for (size_t a = 0; a < root.alternatives.size(); ++a) {
    Expand({{grammar_->root, static_cast<int32_t>(a), 0}}, s.stacks, 0, budget);
  }
  SortUnique(s.stacks);
  return s;
}

ParseState Pushdown::StartAt(Position p) const {
  ParseState s;
  s.stacks.push_back({{kInContext, 0, 0}, p});
  return s;
}

const Element& Pushdown::Top(const Stack& s) const {
  const Position& p = s.back();
  return grammar_->rules[size_t(p.rule)].alternatives[size_t(p.alternative)][size_t(p.element)];
}

// Resolves `stack` until its top is a character set (or it is empty, the sentence complete, or a
// marker, the starting rule finished): a finished sequence returns to its parent past the
// reference, a reference branches into each alternative of its rule. A reference that ends its
// sequence replaces the caller's frame instead of stacking on it (the caller has nothing left to
// do), so a right-recursive repetition — every JSON string, array and object — keeps a stack of
// constant depth however long it runs.
void Pushdown::Expand(Stack stack, std::vector<Stack>& out, int depth, int& budget) const {
  if (depth > kMaxExpandDepth || out.size() > kMaxParseStacks) return;
  while (budget-- > 0) {
    if (stack.empty() || IsMarker(stack)) {
      out.push_back(std::move(stack));
      return;
    }
    const Position& top = stack.back();
    const Sequence& seq = grammar_->rules[size_t(top.rule)].alternatives[size_t(top.alternative)];
    if (size_t(top.element) == seq.size()) {
      const int32_t finished = top.rule;
      stack.pop_back();
      if (IsMarker(stack)) {
        stack.back().alternative = finished;
      } else if (!stack.empty()) {
        ++stack.back().element;
      }
      continue;
    }
    const Element& e = seq[size_t(top.element)];
    if (e.kind == Element::kChars) {
      out.push_back(std::move(stack));
      return;
    }
    const bool tail = size_t(top.element) + 1 == seq.size();
    const size_t alternatives = grammar_->rules[size_t(e.rule)].alternatives.size();
    for (size_t a = 0; a < alternatives; ++a) {
      Stack branch = stack;
      const Position callee{e.rule, static_cast<int32_t>(a), 0};
      if (tail) {
        branch.back() = callee;
      } else {
        branch.push_back(callee);
      }
      Expand(std::move(branch), out, depth + 1, budget);
    }
    return;
  }
}

// Past the end of a rule whose caller is unknown, the input continues after any reference to it
// (and, for the start rule, may end): an over-approximation of every real caller, so what it
// rejects no caller accepts. A rule that can return to one place only goes on there and nowhere
// else, so going past its end keeps the stack as well known as it was.
void Pushdown::Escape(const Stack& marker_top, std::vector<Stack>& out, int& budget) const {
  struct Finished {
    int32_t rule, bottom;
  };
  std::vector<uint8_t> seen(grammar_->rules.size() * 2, 0);
  auto first_time = [&seen](const Finished& f) {
    uint8_t& s = seen[size_t(f.rule) * 2 + (f.bottom == kEscaped ? 1 : 0)];
    return s == 0 ? (s = 1) : 0;
  };
  std::vector<Finished> finished = {{marker_top.back().alternative, marker_top.back().rule}};
  first_time(finished.back());
  std::vector<Stack> expanded;
  while (!finished.empty()) {
    const Finished f = finished.back();
    finished.pop_back();
    const std::vector<Position>& sites = references_[size_t(f.rule)];
    if (f.rule == grammar_->root) out.emplace_back();
    const int32_t bottom = single_return_[size_t(f.rule)] ? f.bottom : kEscaped;
    for (const Position& site : sites) {
      expanded.clear();
      Expand({{bottom, 0, 0}, {site.rule, site.alternative, site.element + 1}}, expanded, 0, budget);
      for (Stack& s : expanded) {
        if (!IsMarker(s)) {
          out.push_back(std::move(s));
        } else if (const Finished next{s.back().alternative, s.back().rule}; first_time(next)) {
          finished.push_back(next);
        }
      }
    }
  }
}

const std::vector<Stack>& Pushdown::Resolved(const std::vector<Stack>& stacks, std::vector<Stack>& scratch,
                                             int& budget) const {
  if (std::none_of(stacks.begin(), stacks.end(), IsMarker)) return stacks;
  scratch.clear();
  for (const Stack& s : stacks) {
    if (IsMarker(s)) {
      Escape(s, scratch, budget);
    } else {
      scratch.push_back(s);
    }
  }
  return scratch;
}

bool Pushdown::AcceptCodePoint(ParseState& s, uint32_t cp) const {
  std::vector<Stack> scratch, next;
  int budget = kExpandBudget;
  for (const Stack& stack : Resolved(s.stacks, scratch, budget)) {
    if (stack.empty() || !Top(stack).Accepts(cp)) continue;
    Stack advanced = stack;
    ++advanced.back().element;
    Expand(std::move(advanced), next, 0, budget);
  }
  if (next.empty() || next.size() > kMaxParseStacks) return false;
  SortUnique(next);
  s.stacks = std::move(next);
  return true;
}

bool Pushdown::AnyTopIntersects(const ParseState& s, uint32_t lo, uint32_t hi) const {
  std::vector<Stack> scratch;
  int budget = kExpandBudget;
  for (const Stack& stack : Resolved(s.stacks, scratch, budget)) {
    if (stack.empty()) continue;
    for (const CharRange& r : Top(stack).ranges) {
      if (r.lo <= hi && lo <= r.hi) return true;
    }
  }
  return false;
}

std::bitset<256> Pushdown::PossibleBytes(const ParseState& s) const {
  std::bitset<256> bytes;
  if (s.pending > 0) {
    for (int b = 0x80; b <= 0xBF; ++b) bytes.set(size_t(b));
    return bytes;
  }
  std::vector<Stack> scratch;
  int budget = kExpandBudget;
  for (const Stack& stack : Resolved(s.stacks, scratch, budget)) {
    if (stack.empty()) continue;
    for (const CharRange& r : Top(stack).ranges) {
      for (uint32_t cp = r.lo; cp <= std::min<uint32_t>(r.hi, 0x7F); ++cp) bytes.set(cp);
      // A lead byte of each length covers a span of code points; it is possible where the span meets r.
      for (int b = 0xC2; b <= 0xF4; ++b) {
        const int length = b <= 0xDF ? 2 : b <= 0xEF ? 3 : 4;
        const uint32_t bits = uint32_t(b) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07);
        const int rest = 6 * (length - 1);
        const uint32_t lo = bits << rest, hi = lo | ((1u << rest) - 1);
        if (r.lo <= hi && lo <= r.hi) bytes.set(size_t(b));
      }
    }
  }
  return bytes;
}

// UTF-8 is assembled here: a lead byte or a continuation that leaves the character incomplete is
// accepted while some stack's next character set holds a code point the character can still become.
bool Pushdown::AcceptByte(ParseState& s, uint8_t b) const {
  if (s.pending == 0) {
    if (b < 0x80) return AcceptCodePoint(s, b);
    int length = 0;
    uint32_t bits = 0, smallest = 0;  // the least code point a character of this length may encode
    if (b >= 0xC2 && b <= 0xDF) {
      length = 2;
      bits = b & 0x1F;
      smallest = 0x80;
    } else if (b >= 0xE0 && b <= 0xEF) {
      length = 3;
      bits = b & 0x0F;
      smallest = 0x800;
    } else if (b >= 0xF0 && b <= 0xF4) {
      length = 4;
      bits = b & 0x07;
      smallest = 0x10000;
    } else {
      return false;  // a continuation without a lead, or a byte UTF-8 never uses
    }
    const int rest = 6 * (length - 1);
    if (!AnyTopIntersects(s, std::max(bits << rest, smallest), (bits << rest) | ((1u << rest) - 1))) return false;
    s.partial = bits;
    s.length = length;
    s.seen = 1;
    s.pending = length - 1;
    return true;
  }
  if ((b & 0xC0) != 0x80) return false;
  if (s.seen == 1) {  // the second byte rules out overlong forms, surrogates and code points past U+10FFFF
    const uint32_t lead_bits = s.partial;
    if (s.length == 3 && lead_bits == 0x0 && b < 0xA0) return false;
    if (s.length == 3 && lead_bits == 0xD && b > 0x9F) return false;
    if (s.length == 4 && lead_bits == 0x0 && b < 0x90) return false;
    if (s.length == 4 && lead_bits == 0x4 && b > 0x8F) return false;
  }
  const uint32_t partial = (s.partial << 6) | (b & 0x3F);
  if (s.pending == 1) {
    if (!AcceptCodePoint(s, partial)) return false;  // the stacks stay as they were
    s.partial = 0;
    s.length = s.seen = s.pending = 0;
    return true;
  }
  const int rest = 6 * (s.pending - 1);
  if (!AnyTopIntersects(s, partial << rest, (partial << rest) | ((1u << rest) - 1))) return false;
  s.partial = partial;
  ++s.seen;
  --s.pending;
  return true;
}

}  // namespace vt::grammar
