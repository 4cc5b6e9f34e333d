#include "engine/grammar/grammar_matcher.h"

#include <algorithm>

namespace vt::grammar {

namespace {

// Expansion through rule references nests at most this deep before a character is consumed; a
// grammar that goes deeper (left recursion) gets no stack rather than a stack overflow.
constexpr int kMaxExpandDepth = 256;
// An ambiguous grammar (a schema's anyOf of look-alike branches, nested) can multiply the live parse
// stacks at every character; past this many the input is rejected rather than let one request's
// grammar take the engine's time.
constexpr size_t kMaxStacks = 4096;
// Expansion steps one character may take. A left-recursive grammar (a schema whose $ref leads back to
// itself before any character, through anyOf branches) would otherwise branch without end below the
// depth limit; past the budget its remaining branches are dropped.
constexpr int kExpandBudget = 1 << 16;

}  // namespace

GrammarMatcher::GrammarMatcher(std::shared_ptr<const Grammar> grammar) : grammar_(std::move(grammar)) {
  const Rule& root = grammar_->rules[size_t(grammar_->root)];
  for (size_t a = 0; a < root.alternatives.size(); ++a) {
    int budget = kExpandBudget;
    Expand({{grammar_->root, static_cast<int32_t>(a), 0}}, state_.stacks, 0, budget);
  }
  std::sort(state_.stacks.begin(), state_.stacks.end());
  state_.stacks.erase(std::unique(state_.stacks.begin(), state_.stacks.end()), state_.stacks.end());
}

const Element& GrammarMatcher::Top(const Stack& s) const {
  const Position& p = s.back();
  return grammar_->rules[size_t(p.rule)].alternatives[size_t(p.alternative)][size_t(p.element)];
}

// Resolves `stack` until its top is a character set (or it is empty, the sentence complete): a
// finished sequence returns to its parent past the reference, a reference branches into each
// alternative of its rule.
void GrammarMatcher::Expand(Stack stack, std::vector<Stack>& out, int depth, int& budget) const {
  if (depth > kMaxExpandDepth || out.size() > kMaxStacks) return;
  while (budget-- > 0) {
    if (stack.empty()) {
      out.push_back(std::move(stack));
      return;
    }
    const Position& top = stack.back();
    const Sequence& seq = grammar_->rules[size_t(top.rule)].alternatives[size_t(top.alternative)];
    if (size_t(top.element) == seq.size()) {
      stack.pop_back();
      if (!stack.empty()) ++stack.back().element;
      continue;
    }
    const Element& e = seq[size_t(top.element)];
    if (e.kind == Element::kChars) {
      out.push_back(std::move(stack));
      return;
    }
    const Rule& rule = grammar_->rules[size_t(e.rule)];
    for (size_t a = 0; a < rule.alternatives.size(); ++a) {
      Stack branch = stack;
      branch.push_back({e.rule, static_cast<int32_t>(a), 0});
      Expand(std::move(branch), out, depth + 1, budget);
    }
    return;
  }
}

bool GrammarMatcher::AcceptCodePoint(State& s, uint32_t cp) const {
  std::vector<Stack> next;
  int budget = kExpandBudget;
  for (const Stack& stack : s.stacks) {
    if (stack.empty() || !Top(stack).Accepts(cp)) continue;
    Stack advanced = stack;
    ++advanced.back().element;
    Expand(std::move(advanced), next, 0, budget);
  }
  if (next.empty() || next.size() > kMaxStacks) return false;
  std::sort(next.begin(), next.end());
  next.erase(std::unique(next.begin(), next.end()), next.end());
  s.stacks = std::move(next);
  return true;
}

bool GrammarMatcher::AnyTopIntersects(const State& s, uint32_t lo, uint32_t hi) const {
  for (const Stack& stack : s.stacks) {
    if (stack.empty()) continue;
    for (const CharRange& r : Top(stack).ranges) {
      if (r.lo <= hi && lo <= r.hi) return true;
    }
  }
  return false;
}

// UTF-8 is assembled here: a lead byte or a continuation that leaves the character incomplete is
// accepted while some stack's next character set holds a code point the character can still become.
bool GrammarMatcher::AcceptByte(State& s, uint8_t b) const {
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
    State t = s;
    t.partial = bits;
    t.length = length;
    t.seen = 1;
    t.pending = length - 1;
    const int rest = 6 * t.pending;
    if (!AnyTopIntersects(t, std::max(bits << rest, smallest), (bits << rest) | ((1u << rest) - 1))) return false;
    s = std::move(t);
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
  State t = s;
  t.partial = (t.partial << 6) | (b & 0x3F);
  ++t.seen;
  --t.pending;
  if (t.pending == 0) {
    const uint32_t cp = t.partial;
    t.partial = 0;
    t.length = t.seen = 0;
    if (!AcceptCodePoint(t, cp)) return false;
    s = std::move(t);
    return true;
  }
  const int rest = 6 * t.pending;
  if (!AnyTopIntersects(t, t.partial << rest, (t.partial << rest) | ((1u << rest) - 1))) return false;
  s = std::move(t);
  return true;
}

bool GrammarMatcher::Accept(std::string_view bytes) {
  State t = state_;
  for (char c : bytes) {
    if (!AcceptByte(t, static_cast<uint8_t>(c))) return false;
  }
  state_ = std::move(t);
  return true;
}

bool GrammarMatcher::CanEnd() const {
  return state_.pending == 0 &&
         std::any_of(state_.stacks.begin(), state_.stacks.end(), [](const Stack& s) { return s.empty(); });
}

bool GrammarMatcher::Finished() const {
  return state_.pending == 0 &&
         std::all_of(state_.stacks.begin(), state_.stacks.end(), [](const Stack& s) { return s.empty(); });
}

void GrammarMatcher::Walk(const TokenVocabulary& vocab, int32_t node, const State& state,
                          std::vector<uint8_t>* allowed) const {
  for (const auto& [byte, child] : vocab.node(node).children) {
    State next = state;
    if (!AcceptByte(next, byte)) continue;
    for (int32_t id : vocab.node(child).tokens) (*allowed)[size_t(id)] = 1;
    Walk(vocab, child, next, allowed);
  }
}

// The state as bytes: every stack's positions, then the pending UTF-8 character.
std::string GrammarMatcher::StateKey() const {
  std::string key;
  auto put = [&key](int32_t v) { key.append(reinterpret_cast<const char*>(&v), sizeof v); };
  for (const Stack& stack : state_.stacks) {
    put(static_cast<int32_t>(stack.size()));
    for (const Position& p : stack) {
      put(p.rule);
      put(p.alternative);
      put(p.element);
    }
  }
  put(-1);
  put(static_cast<int32_t>(state_.partial));
  put(state_.pending);
  put(state_.length);
  put(state_.seen);
  return key;
}

void GrammarMatcher::AllowedTokens(const TokenVocabulary& vocab, std::vector<uint8_t>* allowed,
                                   MaskCache* cache) const {
  std::string key;
  if (cache != nullptr) {
    key = StateKey();
    if (std::shared_ptr<const std::vector<uint8_t>> hit = cache->Find(key)) {
      *allowed = *hit;
      return;
    }
  }
  allowed->assign(static_cast<size_t>(vocab.size()), 0);
  Walk(vocab, 0, state_, allowed);
  if (cache != nullptr) cache->Insert(key, std::make_shared<const std::vector<uint8_t>>(*allowed));
}

}  // namespace vt::grammar
