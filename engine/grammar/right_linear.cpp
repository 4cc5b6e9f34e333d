#include "engine/grammar/right_linear.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace vt::grammar {

Result<Grammar> KeepLive(const Grammar& g) {
  // Backwards from the rules that may end: a rule is live when one of its moves leads to a live one.
  const size_t n = g.rules.size();
  std::vector<std::vector<int32_t>> callers(n);
  std::vector<bool> live(n, false);
  std::vector<int32_t> todo;
  for (size_t r = 0; r < n; ++r) {
    for (const Sequence& seq : g.rules[r].alternatives) {
      if (!seq.empty()) {
        callers[size_t(seq.back().rule)].push_back(int32_t(r));
      } else if (!live[r]) {
        live[r] = true;
        todo.push_back(int32_t(r));
      }
    }
  }
  while (!todo.empty()) {
    const int32_t r = todo.back();
    todo.pop_back();
    for (int32_t c : callers[size_t(r)]) {
      if (live[size_t(c)]) continue;
      live[size_t(c)] = true;
      todo.push_back(c);
    }
  }
  if (!live[size_t(g.root)]) return InvalidArgument("it matches no string");
  std::vector<int32_t> id(n, -1);
  Grammar out;
  for (size_t r = 0; r < n; ++r) {
    if (live[r]) id[r] = AddRule(out, g.rules[r].name);
  }
  for (size_t r = 0; r < n; ++r) {
    if (!live[r]) continue;
    std::vector<Sequence>& alternatives = out.rules[size_t(id[r])].alternatives;
    for (const Sequence& seq : g.rules[r].alternatives) {
      if (!seq.empty() && !live[size_t(seq.back().rule)]) continue;
      alternatives.push_back(seq);
      if (!seq.empty()) alternatives.back().back().rule = id[size_t(seq.back().rule)];
    }
  }
  out.root = id[size_t(g.root)];
  return out;
}

Result<Grammar> WithLength(const Grammar& g, int64_t min, int64_t max, int64_t max_rules) {
  const int64_t cap = max < 0 ? min : max;
  using Pair = std::pair<int32_t, int64_t>;  // (rule of g, characters so far, saturated at `cap`)
  std::map<Pair, int32_t> ids;
  std::vector<Pair> pairs;
  Grammar out;
  auto id = [&](Pair p) -> int32_t {
    auto [it, fresh] = ids.emplace(p, int32_t(pairs.size()));
    if (fresh) {
      pairs.push_back(p);
      AddRule(out, g.rules[size_t(p.first)].name + "/" + std::to_string(p.second));
    }
    return it->second;
  };
  out.root = id({g.root, 0});
  for (size_t i = 0; i < pairs.size(); ++i) {
    const auto [rule, length] = pairs[i];
    std::vector<Sequence> alternatives;
    for (const Sequence& seq : g.rules[size_t(rule)].alternatives) {
      if (seq.empty()) {
        if (length >= min) alternatives.push_back({});
        continue;
      }
      if (seq.size() == 1) {  // a bare reference reads nothing
        alternatives.push_back({Ref(id({seq.back().rule, length}))});
        continue;
      }
      if (max >= 0 && length == max) continue;
      const int64_t next = length < cap ? length + 1 : cap;
      alternatives.push_back({seq.front(), Ref(id({seq.back().rule, next}))});
    }
    out.rules[i].alternatives = std::move(alternatives);
    if (int64_t(pairs.size()) > max_rules) {
      return InvalidArgument("with the length bounds its automaton has more than " + std::to_string(max_rules) +
                             " states");
    }
  }
  Result<Grammar> live = KeepLive(out);
  if (!live.ok()) return InvalidArgument("no string of those lengths matches it");
  return live;
}

}  // namespace vt::grammar
