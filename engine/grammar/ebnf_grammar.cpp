#include "engine/grammar/ebnf_grammar.h"

#include <string>
#include <utility>
#include <vector>

namespace vt::grammar {

namespace {

class Compiler {
 public:
  Compiler(const EbnfSyntax& syntax, int64_t max_elements) : syntax_(syntax), max_elements_(max_elements) {}

  // The text's rules keep their indices; helper rules follow them.
  Result<Grammar> Run() {
    for (const EbnfRule& rule : syntax_.rules) AddRule(g_, rule.name);
    g_.root = syntax_.root;
    for (size_t r = 0; r < syntax_.rules.size(); ++r) {
      owner_ = syntax_.rules[r].name;
      Result<std::vector<Sequence>> alts = Alternatives(syntax_.rules[r].body);
      if (!alts.ok()) return alts.status();
      g_.rules[r].alternatives = std::move(*alts);
    }
    return std::move(g_);
  }

 private:
  Status Count(int64_t n) {
    elements_ += n;
    if (elements_ > max_elements_) {
      return InvalidArgument("grammar: its repetitions write out to more than " + std::to_string(max_elements_) +
                             " elements");
    }
    return Status();
  }

  Result<std::vector<Sequence>> Alternatives(const EbnfNode& n) {
    std::vector<Sequence> alts;
    if (n.kind != EbnfNode::kAlternate) {
      alts.emplace_back();
      if (Status s = Append(n, alts.back()); !s.ok()) return s;
      return alts;
    }
    for (const EbnfNode& child : n.children) {
      alts.emplace_back();
      if (Status s = Append(child, alts.back()); !s.ok()) return s;
    }
    return alts;
  }

  Result<int32_t> Helper(const EbnfNode& n) {
    const int32_t r = AddRule(g_, owner_ + "-" + std::to_string(++helpers_));
    Result<std::vector<Sequence>> alts = Alternatives(n);
    if (!alts.ok()) return alts.status();
    g_.rules[size_t(r)].alternatives = std::move(*alts);
    return r;
  }

  Status Append(const EbnfNode& n, Sequence& out) {
    switch (n.kind) {
      case EbnfNode::kChars:
        out.push_back(Chars(n.ranges));
        return Count(1);
      case EbnfNode::kLiteral:
        for (uint32_t cp : n.text) out.push_back(Char(cp));
        return Count(int64_t(n.text.size()));
      case EbnfNode::kReference:
        out.push_back(Ref(n.rule));
        return Count(1);
      case EbnfNode::kSequence:
        for (const EbnfNode& child : n.children) {
          if (Status s = Append(child, out); !s.ok()) return s;
        }
        return Status();
      case EbnfNode::kAlternate: {
        Result<int32_t> r = Helper(n);
        if (!r.ok()) return r.status();
        out.push_back(Ref(*r));
        return Count(1);
      }
      case EbnfNode::kRepeat:
        return Repeat(n, out);
    }
    return Status();
  }

  // What is repeated, as one element: itself when it is one, else a helper rule.
  Result<Element> One(const EbnfNode& n) {
    if (n.kind == EbnfNode::kChars) return Chars(n.ranges);
    if (n.kind == EbnfNode::kReference) return Ref(n.rule);
    if (n.kind == EbnfNode::kLiteral && n.text.size() == 1) return Char(n.text[0]);
    Result<int32_t> r = Helper(n);
    if (!r.ok()) return r.status();
    return Ref(*r);
  }

  Status Repeat(const EbnfNode& n, Sequence& out) {
    Result<Element> one = One(n.children[0]);
    if (!one.ok()) return one.status();
    const Element& e = *one;
    if (Status s = Count(n.min + 1); !s.ok()) return s;
    for (int64_t k = 0; k < n.min; ++k) out.push_back(e);
    if (n.max == n.min) return Status();
    const int32_t tail = AddRule(g_, owner_ + "-" + std::to_string(++helpers_));
    if (n.max < 0) {
      g_.rules[size_t(tail)].alternatives = {{e, Ref(tail)}, {}};
      out.push_back(Ref(tail));
      return Count(2);
    }
    // Optional copies as a chain: each one either stops or is followed by the next.
    g_.rules[size_t(tail)].alternatives = {{e}, {}};
    int32_t next = tail;
    for (int64_t k = n.min + 1; k < n.max; ++k) {
      next = AddRule(g_, owner_ + "-" + std::to_string(++helpers_));
      g_.rules[size_t(next)].alternatives = {{e, Ref(next - 1)}, {}};
      if (Status s = Count(2); !s.ok()) return s;
    }
    out.push_back(Ref(next));
    return Count(1);
  }

  const EbnfSyntax& syntax_;
  const int64_t max_elements_;
  Grammar g_;
  std::string owner_;  // the rule being compiled, which names its helpers
  int64_t helpers_ = 0;
  int64_t elements_ = 0;
};

struct LeftReference {
  int32_t rule;
  TextPosition at;
};

// Where the rules can lead before any character: for each rule, the references it may begin with
// (through what can be empty in front of them). A repetition without bound of what can be empty is
// an error here: its helper rule would begin with itself.
class LeftEdges {
 public:
  explicit LeftEdges(std::vector<bool> nullable) : nullable_(std::move(nullable)) {}

  Result<std::vector<std::vector<LeftReference>>> Of(const EbnfSyntax& syntax) {
    std::vector<std::vector<LeftReference>> edges(syntax.rules.size());
    for (size_t r = 0; r < syntax.rules.size(); ++r) {
      Walk(syntax.rules[r].body, &edges[r]);
      if (!error_.ok()) return error_;
    }
    return edges;
  }

 private:
  // Whether `n` can match the empty string; its leading references go to `firsts` when given.
  bool Walk(const EbnfNode& n, std::vector<LeftReference>* firsts) {
    switch (n.kind) {
      case EbnfNode::kChars: return false;
      case EbnfNode::kLiteral: return n.text.empty();
      case EbnfNode::kReference:
        if (firsts) firsts->push_back({n.rule, n.at});
        return nullable_[size_t(n.rule)];
      case EbnfNode::kSequence: {
        bool empty = true;
        for (const EbnfNode& child : n.children) empty = Walk(child, empty ? firsts : nullptr) && empty;
        return empty;
      }
      case EbnfNode::kAlternate: {
        bool empty = false;
        for (const EbnfNode& child : n.children) empty = Walk(child, firsts) || empty;
        return empty;
      }
      case EbnfNode::kRepeat: {
        const bool empty = Walk(n.children[0], firsts);
        if (empty && n.max < 0 && error_.ok()) {
          error_ = InvalidArgument("grammar: left recursion: a repetition without bound of what can match the empty "
                                   "string at " + ToString(n.at) + " (repeat something that cannot be empty)");
        }
        return empty || n.min == 0;
      }
    }
    return false;
  }

  std::vector<bool> nullable_;
  Status error_;
};

// A rule that can begin with itself, found by a depth-first search without recursion (a chain of
// thousands of rules must not overflow the stack).
Status NoLeftRecursion(const EbnfSyntax& syntax, const std::vector<std::vector<LeftReference>>& edges) {
  enum Color : uint8_t { kNew, kOnPath, kDone };
  std::vector<Color> color(edges.size(), kNew);
  for (size_t start = 0; start < edges.size(); ++start) {
    if (color[start] != kNew) continue;
    std::vector<std::pair<int32_t, size_t>> path = {{int32_t(start), 0}};  // rule, next edge
    color[start] = kOnPath;
    while (!path.empty()) {
      auto& [rule, next] = path.back();
      if (next == edges[size_t(rule)].size()) {
        color[size_t(rule)] = kDone;
        path.pop_back();
        continue;
      }
      const LeftReference& ref = edges[size_t(rule)][next++];
      if (color[size_t(ref.rule)] == kNew) {
        color[size_t(ref.rule)] = kOnPath;
        path.emplace_back(ref.rule, 0);
        continue;
      }
      if (color[size_t(ref.rule)] == kDone) continue;
      std::string cycle;
      bool in = false;
      for (const auto& step : path) {
        in = in || step.first == ref.rule;
        if (in) cycle += syntax.rules[size_t(step.first)].name + " -> ";
      }
      cycle += syntax.rules[size_t(ref.rule)].name;
      return InvalidArgument("grammar: left recursion: rule '" + syntax.rules[size_t(ref.rule)].name +
                             "' can begin with itself (" + cycle + ") at " + ToString(ref.at));
    }
  }
  return Status();
}

// The rules that take part in some sentence: alternatives that can derive no string are dropped
// (an empty class, a rule that never ends), then the rules the root no longer reaches; the rest
// are numbered anew. The token mask table needs every rule to derive a string to trust a token
// that finishes one.
Result<Grammar> Trim(Grammar g) {
  const std::vector<bool> productive = DerivingRules(g, false);
  if (!productive[size_t(g.root)]) return InvalidArgument("grammar: it matches no string");
  for (Rule& rule : g.rules) {
    std::vector<Sequence> kept;
    for (Sequence& seq : rule.alternatives) {
      bool ok = true;
      for (const Element& e : seq) {
        ok = ok && (e.kind == Element::kRule ? bool(productive[size_t(e.rule)]) : !e.ranges.empty());
      }
      if (ok) kept.push_back(std::move(seq));
    }
    rule.alternatives = std::move(kept);
  }
  std::vector<int32_t> renumbered(g.rules.size(), -1);
  std::vector<int32_t> order = {g.root};
  renumbered[size_t(g.root)] = 0;
  for (size_t k = 0; k < order.size(); ++k) {
    for (const Sequence& seq : g.rules[size_t(order[k])].alternatives) {
      for (const Element& e : seq) {
        if (e.kind == Element::kRule && renumbered[size_t(e.rule)] < 0) {
          renumbered[size_t(e.rule)] = int32_t(order.size());
          order.push_back(e.rule);
        }
      }
    }
  }
  Grammar out;
  for (int32_t r : order) {
    out.rules.push_back(std::move(g.rules[size_t(r)]));
    for (Sequence& seq : out.rules.back().alternatives) {
      for (Element& e : seq) {
        if (e.kind == Element::kRule) e.rule = renumbered[size_t(e.rule)];
      }
    }
  }
  out.root = 0;
  return out;
}

}  // namespace

Result<Grammar> CompileEbnf(std::string_view text, const EbnfCompileLimits& limits) {
  Result<EbnfSyntax> syntax = ParseEbnf(text, limits.syntax);
  if (!syntax.ok()) return syntax.status();
  Result<Grammar> compiled = Compiler(*syntax, limits.max_elements).Run();
  if (!compiled.ok()) return compiled.status();
  // The text's rules kept their indices, so the compiled grammar says which of them can be empty.
  std::vector<bool> nullable = DerivingRules(*compiled, true);
  nullable.resize(syntax->rules.size());
  Result<std::vector<std::vector<LeftReference>>> edges = LeftEdges(std::move(nullable)).Of(*syntax);
  if (!edges.ok()) return edges.status();
  if (Status s = NoLeftRecursion(*syntax, *edges); !s.ok()) return s;
  return Trim(std::move(*compiled));
}

}  // namespace vt::grammar
