#include "engine/grammar/token_mask_table.h"

#include <algorithm>
#include <atomic>
#include <span>
#include <string>
#include <thread>
#include <unordered_map>

namespace vt::grammar {

namespace {

// A walk that finishes a rule exactly at a token's end may count the token as accepted only if every
// caller can go on from there, which holds when every rule derives something.
bool EveryRuleDerivesAString(const Grammar& g) {
  const std::vector<bool> deriving = DerivingRules(g, false);
  return std::all_of(deriving.begin(), deriving.end(), [](bool d) { return d; });
}

// The parse states the walks meet, each stepped by a byte at most once: a walk of the vocabulary
// trie then mostly follows known transitions (inside a string, one state loops on almost every
// byte) instead of stepping stacks at each of its hundreds of thousands of nodes. States are shared
// by the walks of all positions; past kMaxStates the graph starts over between two walks.
class StateGraph {
 public:
  static constexpr int32_t kDead = -1;

  StateGraph(const Pushdown& pushdown, bool finish_counts) : pushdown_(pushdown), finish_counts_(finish_counts) {}

  int32_t Intern(ParseState s) {
    std::string key;
    auto put = [&key](int32_t v) { key.append(reinterpret_cast<const char*>(&v), sizeof v); };
    for (const Stack& stack : s.stacks) {
      put(static_cast<int32_t>(stack.size()));
      for (const Position& p : stack) {
        put(p.rule);
        put(p.alternative);
        put(p.element);
      }
    }
    PutPartialCharacter(s, put);
    put(s.pending);
    put(s.length);
    put(s.seen);
    const auto [it, added] = ids_.emplace(std::move(key), static_cast<int32_t>(states_.size()));
    if (added) {
      sure_.push_back(StayedInside(s, finish_counts_));
      possible_.push_back(pushdown_.PossibleBytes(s));
      states_.push_back(std::move(s));
      next_.resize(next_.size() + 256, kUnknown);
    }
    return it->second;
  }

  int32_t Next(int32_t state, uint8_t byte) {
    const size_t slot = size_t(state) * 256 + byte;
    if (next_[slot] != kUnknown) return next_[slot];
    if (!possible_[size_t(state)].test(byte)) return next_[slot] = kDead;
    ParseState t = states_[size_t(state)];
    const int32_t to = pushdown_.AcceptByte(t, byte) ? Intern(std::move(t)) : kDead;
    next_[slot] = to;
    return to;
  }

  bool Sure(int32_t state) const { return sure_[size_t(state)]; }

  // An incomplete character's bits matter only through which stacks its possible code points
  // satisfy. Once the overlong checks are behind it, if each stack's next character set holds all
  // of them or none, any character with the same answers goes on the same way (every completion is
  // accepted by the same stacks, and the stacks it leads to do not depend on which code point it
  // was), so the answers replace the bits in the key: one state per answer, not one per prefix of
  // every CJK character.
  template <typename Put>
  void PutPartialCharacter(const ParseState& s, Put& put) const {
    const bool checks_done = s.length == 2 || s.seen >= 2;
    if (s.pending == 0 || !checks_done) {
      put(static_cast<int32_t>(s.partial));
      return;
    }
    const int rest = 6 * s.pending;
    const uint32_t lo = s.partial << rest, hi = lo | ((1u << rest) - 1);
    std::vector<int32_t> answers;
    for (const Stack& stack : s.stacks) {
      if (stack.empty() || stack.back().rule < 0) {
        put(static_cast<int32_t>(s.partial));
        return;
      }
      int32_t answer = 0;  // 0: none of them, 1: all of them
      for (const CharRange& r : pushdown_.Top(stack).ranges) {
        if (r.hi < lo || r.lo > hi) continue;
        if (r.lo > lo || r.hi < hi) {  // some of them: the bits decide
          put(static_cast<int32_t>(s.partial));
          return;
        }
        answer = 1;
      }
      answers.push_back(answer);
    }
    put(-1);
    for (int32_t a : answers) put(a);
  }

  void StartOverIfLarge() {
    if (states_.size() < kMaxStates) return;
    states_.clear();
    next_.clear();
    sure_.clear();
    possible_.clear();
    ids_.clear();
  }

 private:
  static constexpr int32_t kUnknown = -2;
  static constexpr size_t kMaxStates = 1 << 14;  // 16 Mi of transitions at most

  const Pushdown& pushdown_;
  const bool finish_counts_;
  std::vector<ParseState> states_;
  std::vector<int32_t> next_;  // [state * 256 + byte]: the state it leads to, kDead or kUnknown
  std::vector<bool> sure_;
  std::vector<std::bitset<256>> possible_;
  std::unordered_map<std::string, int32_t> ids_;
};

// Returns the trie nodes it visited.
int64_t Walk(const TokenVocabulary& vocab, StateGraph& graph, int32_t start, TokenBitmask& accepted,
             std::vector<int32_t>& uncertain) {
  auto step = [&graph](int32_t from, uint8_t byte, int32_t* to) {
    *to = graph.Next(from, byte);
    return *to != StateGraph::kDead;
  };
  auto reached = [&](int32_t node, int32_t state) {
    const std::span<const int32_t> ids = vocab.tokens_at(node);
    if (ids.empty()) return;
    if (graph.Sure(state)) {
      for (int32_t id : ids) accepted.Set(id);
    } else {
      uncertain.insert(uncertain.end(), ids.begin(), ids.end());
    }
  };
  return WalkTrie(vocab, start, step, reached);
}

// One position's entry: its walk over the vocabulary, kept in the smaller of the two forms.
int64_t FillEntry(const Pushdown& pushdown, const TokenVocabulary& vocab, StateGraph& graph, const Position& p,
                  TokenBitmask& accepted, TokenMaskTable::Entry& entry) {
  accepted.Reset(vocab.size());
  graph.StartOverIfLarge();
  const int64_t visits = Walk(vocab, graph, graph.Intern(pushdown.StartAt(p)), accepted, entry.uncertain);
  // Ids take 4 bytes against a bit each.
  if (accepted.Count() * 32 > vocab.size()) {
    entry.accepted_bits = accepted;
    return visits;
  }
  const std::vector<uint32_t>& words = accepted.words();
  for (size_t w = 0; w < words.size(); ++w) {
    for (uint32_t bits = words[w]; bits != 0; bits &= bits - 1) {
      entry.accepted_ids.push_back(static_cast<int32_t>(w * 32 + size_t(__builtin_ctz(bits))));
    }
  }
  return visits;
}

}  // namespace

std::shared_ptr<const TokenMaskTable::Decided> TokenMaskTable::FindDecided(const std::string& frames) const {
  std::lock_guard<std::mutex> lock(decided_mu_);
  auto it = decided_.find(frames);
  return it == decided_.end() ? nullptr : it->second;
}

void TokenMaskTable::StoreDecided(const std::string& frames, std::shared_ptr<const Decided> decided) const {
  std::lock_guard<std::mutex> lock(decided_mu_);
  if (decided_.size() >= kMaxDecided) decided_.clear();
  decided_.emplace(frames, std::move(decided));
}

void TokenMaskTable::Entry::OrInto(TokenBitmask& mask) const {
  if (!accepted_bits.words().empty()) {
    mask.Or(accepted_bits);
    return;
  }
  for (int32_t id : accepted_ids) mask.Set(id);
}

Result<std::shared_ptr<const TokenMaskTable>> TokenMaskTable::Build(const std::shared_ptr<const Grammar>& grammar,
                                                                    const TokenVocabulary& vocab, int64_t max_visits) {
  auto table = std::make_shared<TokenMaskTable>();
  table->grammar_ = grammar.get();
  const Pushdown pushdown(grammar);
  table->finish_counts_ = EveryRuleDerivesAString(*grammar);
  int32_t next = 0;
  table->offsets_.resize(grammar->rules.size());
  for (size_t r = 0; r < grammar->rules.size(); ++r) {
    for (const Sequence& seq : grammar->rules[r].alternatives) {
      table->offsets_[r].push_back(next);
      next += static_cast<int32_t>(seq.size());
    }
  }
  table->entries_.resize(size_t(next));
  // A rule nothing reaches (one copied into its callers) needs no entries.
  const std::vector<bool> reachable = ReachableRules(*grammar);
  std::vector<Position> positions;
  for (size_t r = 0; r < grammar->rules.size(); ++r) {
    if (!reachable[r]) continue;
    const Rule& rule = grammar->rules[r];
    for (size_t a = 0; a < rule.alternatives.size(); ++a) {
      for (size_t e = 0; e < rule.alternatives[a].size(); ++e) {
        if (rule.alternatives[a][e].kind == Element::kChars) {
          positions.push_back({static_cast<int32_t>(r), static_cast<int32_t>(a), static_cast<int32_t>(e)});
        }
      }
    }
  }
  // Positions are independent: workers take them in turn, each with its own state graph. A schema
  // with many bounded strings walks the whole vocabulary once per character position, seconds on one
  // core for a 151k vocabulary, and a client waits for it on its first request with that schema.
  const size_t workers = std::min<size_t>({std::max(1u, std::thread::hardware_concurrency()), kMaxBuildThreads,
                                           std::max<size_t>(1, positions.size() / 8)});
  std::atomic<size_t> taken{0};
  std::atomic<int64_t> visits{0};
  auto work = [&] {
    StateGraph graph(pushdown, table->finish_counts_);
    TokenBitmask accepted;
    for (size_t k = taken++; k < positions.size() && visits < max_visits; k = taken++) {
      visits += FillEntry(pushdown, vocab, graph, positions[k], accepted, table->Mutable(positions[k]));
    }
  };
  std::vector<std::thread> threads;
  for (size_t t = 1; t < workers; ++t) threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();
  if (visits >= max_visits) {
    return InvalidArgument("the grammar is too large to precompute its token masks: its " +
                           std::to_string(positions.size()) + " character positions walk more than " +
                           std::to_string(max_visits) + " vocabulary trie nodes (fewer or shorter bounded strings "
                           "and arrays would fit)");
  }
  for (const Position& p : positions) {
    const Entry& entry = table->At(p);
    ++table->positions_;
    table->uncertain_tokens_ += static_cast<int64_t>(entry.uncertain.size());
    table->bytes_ += static_cast<int64_t>(entry.accepted_bits.words().size() * 4 +
                                          (entry.accepted_ids.size() + entry.uncertain.size()) * 4);
  }
  return std::shared_ptr<const TokenMaskTable>(std::move(table));
}

}  // namespace vt::grammar
