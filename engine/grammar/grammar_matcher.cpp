#include "engine/grammar/grammar_matcher.h"

#include <algorithm>
#include <string>
#include <utility>

namespace vt::grammar {

GrammarMatcher::GrammarMatcher(std::shared_ptr<const Grammar> grammar)
    : pushdown_(std::make_shared<const Pushdown>(std::move(grammar))), state_(pushdown_->Start()) {}

bool GrammarMatcher::AcceptAll(ParseState& s, std::string_view bytes) const {
  for (char c : bytes) {
    if (!pushdown_->AcceptByte(s, static_cast<uint8_t>(c))) return false;
  }
  return true;
}

bool GrammarMatcher::Accept(std::string_view bytes) {
  ParseState t = state_;
  if (!AcceptAll(t, bytes)) return false;
  state_ = std::move(t);
  return true;
}

void GrammarMatcher::Walk(const TokenVocabulary& vocab, const ParseState& state, TokenBitmask* allowed) const {
  auto step = [this](const ParseState& from, uint8_t byte, ParseState* to) {
    *to = from;
    return pushdown_->AcceptByte(*to, byte);
  };
  auto reached = [&](int32_t node, const ParseState&) {
    for (int32_t id : vocab.tokens_at(node)) allowed->Set(id);
  };
  WalkTrie(vocab, state, step, reached);
}

namespace {

// Memo keys: 's' a run of top frames (the stack below unknown), 'w' the whole stack decided exactly,
// 'a' what all levels together accepted for a whole stack; then the frames from `first` up.
std::string FramesKey(char kind, const Stack& stack, size_t first) {
  std::string key(1, kind);
  for (size_t i = first; i < stack.size(); ++i) {
    const int32_t v[3] = {stack[i].rule, stack[i].alternative, stack[i].element};
    key.append(reinterpret_cast<const char*>(v), sizeof v);
  }
  return key;
}

}  // namespace

// The uncertain tokens of the stack's top, decided against ever more of its frames: the top two,
// then three, ... (each decision shared through the table), until none is left undecided or the
// whole stack decides them exactly. The tokens a shorter run of frames left undecided are a
// function of that run, so each longer run's decision depends on its frames alone.
void GrammarMatcher::DecideUncertain(const TokenVocabulary& vocab, const TokenMaskTable& table, const Stack& stack,
                                     TokenBitmask* allowed) const {
  const std::vector<int32_t>* pending = &table.At(stack.back()).uncertain;
  if (pending->empty()) return;
  // A stack met before (inside a string it repeats token after token) costs one lookup, however many
  // frames its decisions took: deep JSON needs as many levels as it nests.
  const std::string whole_key = FramesKey('a', stack, 0);
  if (std::shared_ptr<const TokenMaskTable::Decided> known = table.FindDecided(whole_key)) {
    for (int32_t id : known->accepted) allowed->Set(id);
    return;
  }
  auto all = std::make_shared<TokenMaskTable::Decided>();
  std::shared_ptr<const TokenMaskTable::Decided> decided;
  for (size_t k = 2; !pending->empty(); ++k) {
    const bool whole = k >= stack.size();
    const size_t first = whole ? 0 : stack.size() - k;
    const std::string key = FramesKey(whole ? 'w' : 's', stack, first);
    decided = table.FindDecided(key);
    if (decided == nullptr) {
      auto made = std::make_shared<TokenMaskTable::Decided>();
      ParseState start;
      start.stacks.emplace_back();
      if (!whole) start.stacks.back().push_back({kInContext, 0, 0});
      start.stacks.back().insert(start.stacks.back().end(), stack.begin() + std::ptrdiff_t(first), stack.end());
      for (int32_t id : *pending) {
        ParseState trial = start;
        if (!AcceptAll(trial, vocab.bytes(id))) continue;
        if (whole || StayedInside(trial, table.finish_counts())) {
          made->accepted.push_back(id);
        } else {
          made->undecided.push_back(id);
        }
      }
      table.StoreDecided(key, made);
      decided = std::move(made);
    }
    for (int32_t id : decided->accepted) allowed->Set(id);
    all->accepted.insert(all->accepted.end(), decided->accepted.begin(), decided->accepted.end());
    if (whole) break;
    pending = &decided->undecided;
  }
  table.StoreDecided(whole_key, std::move(all));
}

// A top position's accepted set holds for every stack under it; its uncertain tokens depend on the
// frames below, stack by stack.
void GrammarMatcher::FromTable(const TokenVocabulary& vocab, const TokenMaskTable& table, TokenBitmask* allowed) const {
  const Position* previous = nullptr;
  for (const Stack& stack : state_.stacks) {
    if (stack.empty()) continue;
    if (previous == nullptr || !(*previous == stack.back())) table.At(stack.back()).OrInto(*allowed);
    previous = &stack.back();
  }
  for (const Stack& stack : state_.stacks) {
    if (!stack.empty()) DecideUncertain(vocab, table, stack, allowed);
  }
}

void GrammarMatcher::AllowedTokens(const TokenVocabulary& vocab, TokenBitmask* allowed,
                                   const TokenMaskTable* table) const {
  allowed->Reset(vocab.size());
  // The table holds states at character boundaries; inside a multi-byte character the walk decides.
  if (table != nullptr && table->grammar() == &pushdown_->grammar() && state_.pending == 0) {
    FromTable(vocab, *table, allowed);
    return;
  }
  Walk(vocab, state_, allowed);
}

}  // namespace vt::grammar
