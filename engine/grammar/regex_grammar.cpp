#include "engine/grammar/regex_grammar.h"

#include <algorithm>
#include <map>
#include <string>

#include "engine/grammar/right_linear.h"

namespace vt::grammar {

namespace {

// Thompson's automaton: a state moves on one character set, or without input along its
// epsilon edges; ^ and $ are epsilon edges with a condition (see EpsilonClosure).
struct NfaState {
  std::vector<CharRange> ranges;  // with `next`: the move on a character
  int32_t next = -1;
  std::vector<int32_t> epsilon, at_start, at_end;
};

struct Fragment {
  int32_t in = 0, out = 0;
};

class NfaBuilder {
 public:
  explicit NfaBuilder(int64_t max_states) : max_states_(max_states) {}

  Result<Fragment> Build(const RegexNode& n) {
    if (int64_t(states_.size()) > max_states_) {
      return InvalidArgument("regex: its repetitions write out to more than " + std::to_string(max_states_) +
                             " automaton states");
    }
    switch (n.kind) {
      case RegexNode::kEmpty: {
        const int32_t s = New();
        return Fragment{s, s};
      }
      case RegexNode::kChars: {
        const int32_t a = New(), b = New();
        states_[size_t(a)].ranges = n.ranges;
        states_[size_t(a)].next = b;
        return Fragment{a, b};
      }
      case RegexNode::kStart:
      case RegexNode::kEnd: {
        const int32_t a = New(), b = New();
        (n.kind == RegexNode::kStart ? states_[size_t(a)].at_start : states_[size_t(a)].at_end).push_back(b);
        return Fragment{a, b};
      }
      case RegexNode::kConcat: {
        const int32_t in = New();
        int32_t out = in;
        for (const auto& child : n.children) {
          Result<Fragment> f = Build(*child);
          if (!f.ok()) return f.status();
          Link(out, f->in);
          out = f->out;
        }
        return Fragment{in, out};
      }
      case RegexNode::kAlternate: {
        const int32_t in = New(), out = New();
        for (const auto& child : n.children) {
          Result<Fragment> f = Build(*child);
          if (!f.ok()) return f.status();
          Link(in, f->in);
          Link(f->out, out);
        }
        return Fragment{in, out};
      }
      case RegexNode::kRepeat:
        return Repeat(*n.children[0], n.min, n.max);
    }
    return InvalidArgument("regex: unknown node");
  }

  std::vector<NfaState> Take() { return std::move(states_); }

 private:
  int32_t New() {
    states_.emplace_back();
    return static_cast<int32_t>(states_.size()) - 1;
  }
  void Link(int32_t from, int32_t to) { states_[size_t(from)].epsilon.push_back(to); }

  // `min` copies, then either a loop or `max - min` nested optional copies ((x(x)?)?: after k
  // optional characters the automaton is in copy k only, not in every copy at once).
  Result<Fragment> Repeat(const RegexNode& child, int64_t min, int64_t max) {
    const int32_t in = New();
    int32_t out = in;
    auto copy = [&]() -> Result<Fragment> {
      Result<Fragment> f = Build(child);
      if (f.ok()) Link(out, f->in);
      return f;
    };
    for (int64_t i = 0; i < min; ++i) {
      Result<Fragment> f = copy();
      if (!f.ok()) return f.status();
      out = f->out;
    }
    if (max < 0) {
      const int32_t loop = New();
      Link(out, loop);
      out = loop;
      Result<Fragment> f = copy();
      if (!f.ok()) return f.status();
      Link(f->out, loop);
      return Fragment{in, loop};
    }
    const int32_t end = New();
    for (int64_t i = min; i < max; ++i) {
      Link(out, end);
      Result<Fragment> f = copy();
      if (!f.ok()) return f.status();
      out = f->out;
    }
    Link(out, end);
    return Fragment{in, end};
  }

  int64_t max_states_;
  std::vector<NfaState> states_;
};

// Subsets of the Thompson automaton, one per deterministic state. A subset is keyed by what
// decides its future: the states in it that move on a character, and whether it accepts.
using Key = std::vector<int32_t>;
constexpr int32_t kAccepts = -1;  // in a key: the subset accepts (sorts first)

struct DfaState {
  Key key;
  std::map<int32_t, std::vector<CharRange>> moves;  // target -> its characters
};

// The states reachable from a set of states without input, as a Key, counting the states it visits
// (the work both ways of writing the automaton out are bounded by).
class EpsilonClosure {
 public:
  EpsilonClosure(const std::vector<NfaState>& nfa, int32_t accept)
      : nfa_(nfa), accept_(accept), seen_(nfa.size() * 2, 0) {}

  // ^ holds only before the first character; past a $ nothing may be output, so a state reached
  // through one counts only if it accepts: each state is visited as (state, past-$), and only states
  // not past a $ may move on a character.
  Key operator()(const std::vector<int32_t>& from, bool at_start) {
    ++stamp_;
    Key key;
    bool accepts = false;
    std::vector<int32_t> todo;
    auto visit = [&](int32_t state, bool past_end) {
      const size_t slot = size_t(state) * 2 + (past_end ? 1 : 0);
      if (seen_[slot] == stamp_) return;
      seen_[slot] = stamp_;
      todo.push_back(int32_t(slot));
    };
    for (int32_t s : from) visit(s, false);
    while (!todo.empty()) {
      const int32_t slot = todo.back();
      todo.pop_back();
      ++work_;
      const int32_t state = slot / 2;
      const bool past_end = slot % 2 == 1;
      const NfaState& n = nfa_[size_t(state)];
      if (state == accept_) accepts = true;
      if (!past_end && n.next >= 0) key.push_back(state);
      for (int32_t t : n.epsilon) visit(t, past_end);
      if (at_start) {
        for (int32_t t : n.at_start) visit(t, past_end);
      }
      for (int32_t t : n.at_end) visit(t, true);
    }
    if (accepts) key.push_back(kAccepts);
    std::sort(key.begin(), key.end());
    return key;
  }

  int64_t work() const { return work_; }

 private:
  const std::vector<NfaState>& nfa_;
  int32_t accept_;
  std::vector<uint32_t> seen_;
  uint32_t stamp_ = 0;
  int64_t work_ = 0;
};

class Determinizer {
 public:
  Determinizer(const std::vector<NfaState>& nfa, int32_t accept, const RegexCompileLimits& limits)
      : nfa_(nfa), limits_(limits), closure_(nfa, accept) {}

  Result<std::vector<DfaState>> Run(int32_t start) {
    Result<int32_t> first = Intern(closure_({start}, true));
    if (!first.ok()) return first.status();
    for (size_t d = 0; d < dfa_.size(); ++d) {
      Status s = Expand(d);
      if (!s.ok()) return s;
    }
    return std::move(dfa_);
  }

 private:
  // The id of the subset `key`, new or seen; -1 for the empty subset (it accepts nothing).
  Result<int32_t> Intern(Key key) {
    if (key.empty()) return -1;
    auto it = index_.find(key);
    if (it != index_.end()) return it->second;
    if (int64_t(dfa_.size()) >= limits_.max_dfa_states) {
      return InvalidArgument("regex: its deterministic automaton has more than " +
                             std::to_string(limits_.max_dfa_states) + " states");
    }
    const int32_t id = static_cast<int32_t>(dfa_.size());
    index_.emplace(key, id);
    dfa_.push_back({std::move(key), {}});
    return id;
  }

  // The moves of subset `d`: the code points are cut where any member's set starts or ends, and
  // each piece leads to the closure of the states it moves to.
  Status Expand(size_t d) {
    struct Event {
      uint32_t at;
      int32_t target;
      bool opens;
    };
    std::vector<Event> events;
    for (int32_t s : dfa_[d].key) {
      if (s == kAccepts) continue;
      for (const CharRange& r : nfa_[size_t(s)].ranges) {
        events.push_back({r.lo, nfa_[size_t(s)].next, true});
        events.push_back({r.hi + 1, nfa_[size_t(s)].next, false});
      }
    }
    std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) { return a.at < b.at; });
    std::map<int32_t, int> active;
    std::map<std::vector<int32_t>, int32_t> successors;  // target states -> subset, for this d
    for (size_t e = 0; e < events.size();) {
      const uint32_t at = events[e].at;
      for (; e < events.size() && events[e].at == at; ++e) {
        if (events[e].opens) {
          ++active[events[e].target];
        } else if (--active[events[e].target] == 0) {
          active.erase(events[e].target);
        }
      }
      if (active.empty() || e == events.size()) continue;
      std::vector<int32_t> targets;
      for (const auto& [t, count] : active) targets.push_back(t);
      auto [it, fresh] = successors.emplace(targets, -1);
      if (fresh) {
        Result<int32_t> next = Intern(closure_(targets, false));
        if (!next.ok()) return next.status();
        it->second = *next;
      }
      if (closure_.work() > limits_.max_work) {
        return InvalidArgument("regex: determinizing it takes more than " + std::to_string(limits_.max_work) +
                               " steps");
      }
      if (it->second < 0) continue;
      std::vector<CharRange>& ranges = dfa_[d].moves[it->second];
      const uint32_t hi = events[e].at - 1;
      if (!ranges.empty() && ranges.back().hi + 1 == at) {
        ranges.back().hi = hi;
      } else {
        ranges.push_back({at, hi});
      }
    }
    return Status::Ok();
  }

  const std::vector<NfaState>& nfa_;
  const RegexCompileLimits& limits_;
  EpsilonClosure closure_;
  std::vector<DfaState> dfa_;
  std::map<Key, int32_t> index_;
};

// The deterministic states written out as rules: each one's moves, and the empty alternative when
// it accepts.
Grammar DfaRules(const std::vector<DfaState>& dfa) {
  Grammar g;
  for (size_t d = 0; d < dfa.size(); ++d) AddRule(g, "regex-" + std::to_string(d));
  for (size_t d = 0; d < dfa.size(); ++d) {
    std::vector<Sequence>& alternatives = g.rules[d].alternatives;
    for (const auto& [target, ranges] : dfa[d].moves) alternatives.push_back({Chars(ranges), Ref(target)});
    if (dfa[d].key.front() == kAccepts) alternatives.push_back({});
  }
  return g;
}

// Thompson's automaton itself written out as rules, for when its deterministic form is too large: a
// rule per state that reads a character (its set, then the rule of the closure its move reaches),
// and a rule per distinct closure (a reference to each reading state in it, and the empty
// alternative when it accepts). The pushdown runs it nondeterministically; a reading state is one
// rule of one alternative, so the live parse stacks are reading states, and since one character
// expands into at most every closure reference, capping those at the pushdown's stack bound keeps
// every step inside it.
Result<Grammar> NfaRules(const std::vector<NfaState>& nfa, int32_t start, int32_t accept,
                         const RegexCompileLimits& limits) {
  EpsilonClosure closure(nfa, accept);
  Grammar g;
  std::vector<int32_t> reader(nfa.size(), -1);  // a reading state's rule
  std::vector<int32_t> todo;                     // reading states whose rule is still empty
  std::map<Key, int32_t> closures;               // a closure's rule
  int64_t references = 0;
  auto closure_rule = [&](Key key) -> Result<int32_t> {
    auto [it, fresh] = closures.emplace(key, -1);
    if (!fresh) return it->second;
    it->second = AddRule(g, "regex-closure-" + std::to_string(closures.size() - 1));
    references += int64_t(key.size());
    if (references > limits.max_nfa_references) {
      return InvalidArgument("as a nondeterministic one it has more than " +
                             std::to_string(limits.max_nfa_references) + " moves");
    }
    std::vector<Sequence> alternatives;
    for (int32_t s : key) {
      if (s == kAccepts) {
        alternatives.push_back({});
        continue;
      }
      if (reader[size_t(s)] < 0) {
        reader[size_t(s)] = AddRule(g, "regex-" + std::to_string(s));
        todo.push_back(s);
      }
      alternatives.push_back({Ref(reader[size_t(s)])});
    }
    g.rules[size_t(it->second)].alternatives = std::move(alternatives);
    return it->second;
  };
  Result<int32_t> root = closure_rule(closure({start}, true));
  if (!root.ok()) return root.status();
  g.root = *root;
  while (!todo.empty()) {
    const int32_t s = todo.back();
    todo.pop_back();
    Result<int32_t> target = closure_rule(closure({nfa[size_t(s)].next}, false));
    if (!target.ok()) return target.status();
    if (closure.work() > limits.max_work) {
      return InvalidArgument("writing out the nondeterministic one takes more than " +
                             std::to_string(limits.max_work) + " steps");
    }
    g.rules[size_t(reader[size_t(s)])].alternatives.push_back({Chars(nfa[size_t(s)].ranges), Ref(*target)});
  }
  return g;
}

}  // namespace

Result<Grammar> CompileRegex(std::string_view pattern, const RegexCompileLimits& limits) {
  Result<std::unique_ptr<RegexNode>> tree = ParseRegex(pattern, limits.syntax);
  if (!tree.ok()) return tree.status();
  NfaBuilder builder(limits.max_nfa_states);
  Result<Fragment> whole = builder.Build(**tree);
  if (!whole.ok()) return whole.status();
  // The deterministic automaton when it fits (one live stack per move, disjoint: the cheapest
  // steps), else the nondeterministic one; every state a rule, then only those from which a string
  // can end (right_linear.h).
  const std::vector<NfaState> nfa = builder.Take();
  Result<std::vector<DfaState>> dfa = Determinizer(nfa, whole->out, limits).Run(whole->in);
  Result<Grammar> g = dfa.ok() ? Result<Grammar>(DfaRules(*dfa)) : NfaRules(nfa, whole->in, whole->out, limits);
  if (!g.ok()) return InvalidArgument(dfa.status().message() + "; " + g.status().message());
  Result<Grammar> live = KeepLive(*g);
  if (!live.ok()) return InvalidArgument("regex: " + live.status().message());
  return live;
}

}  // namespace vt::grammar
