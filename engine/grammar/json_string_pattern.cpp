#include "engine/grammar/json_string_pattern.h"

#include <cstdio>
#include <map>
#include <utility>
#include <vector>

#include "engine/grammar/regex_grammar.h"
#include "engine/grammar/right_linear.h"

namespace vt::grammar {
namespace {

bool MustEscape(uint32_t cp) { return cp < 0x20 || cp == '"' || cp == '\\'; }

// JSON's escape of a character it does not allow as itself: the short forms where JSON has one.
std::string Escape(uint32_t cp) {
  switch (cp) {
    case '"': return "\\\"";
    case '\\': return "\\\\";
    case '\b': return "\\b";
    case '\f': return "\\f";
    case '\n': return "\\n";
    case '\r': return "\\r";
    case '\t': return "\\t";
    default: {
      char text[8];
      std::snprintf(text, sizeof text, "\\u%04x", static_cast<unsigned>(cp));
      return text;
    }
  }
}

// Rewrites the regex grammar's character sets into `g`: a set without characters JSON must escape
// stays one element; any other becomes a reference to a rule of its plain part and one escape per
// character that needs one (cached per set, as the same sets recur across automaton states).
class EscapingCopy {
 public:
  EscapingCopy(Grammar& g, std::string name) : g_(g), name_(std::move(name)) {}

  int32_t Copy(const Grammar& re) {
    const auto offset = static_cast<int32_t>(g_.rules.size());
    for (const Rule& r : re.rules) AddRule(g_, name_ + "/" + r.name);
    for (size_t i = 0; i < re.rules.size(); ++i) {
      std::vector<Sequence> alternatives;
      for (const Sequence& seq : re.rules[i].alternatives) {
        Sequence out;
        for (const Element& e : seq) out.push_back(e.kind == Element::kRule ? Ref(e.rule + offset) : Characters(e));
        alternatives.push_back(std::move(out));
      }
      g_.rules[static_cast<size_t>(offset) + i].alternatives = std::move(alternatives);
    }
    return re.root + offset;
  }

 private:
  Element Characters(const Element& e) {
    std::vector<CharRange> plain;
    std::vector<uint32_t> escaped;
    for (const CharRange& r : e.ranges) {
      uint32_t lo = r.lo;
      for (uint32_t cp = r.lo; cp <= r.hi && cp <= '\\'; ++cp) {  // the escaped ones are all <= '\'
        if (!MustEscape(cp)) continue;
        if (cp > lo) plain.push_back({lo, cp - 1});
        escaped.push_back(cp);
        lo = cp + 1;
      }
      if (lo <= r.hi) plain.push_back({lo, r.hi});
    }
    if (escaped.empty()) return e;
    std::vector<std::pair<uint32_t, uint32_t>> key;
    for (const CharRange& r : e.ranges) key.emplace_back(r.lo, r.hi);
    auto [it, added] = sets_.emplace(std::move(key), -1);
    if (added) {
      std::vector<Sequence> alternatives;
      if (!plain.empty()) alternatives.push_back({Chars(plain)});
      for (uint32_t cp : escaped) alternatives.push_back(Literal(Escape(cp)));
      it->second = AddRule(g_, name_ + "/escaped-" + std::to_string(sets_.size()));
      g_.rules[static_cast<size_t>(it->second)].alternatives = std::move(alternatives);
    }
    return Ref(it->second);
  }

  Grammar& g_;
  std::string name_;
  std::map<std::vector<std::pair<uint32_t, uint32_t>>, int32_t> sets_;
};

}  // namespace

Result<int32_t> AddJsonStringPattern(Grammar& g, std::string_view pattern, StringLength length,
                                     const std::string& name) {
  // The pattern alone first: a syntax error then names its offset as written, and a pattern that
  // only parses inside the wrapper ("a)|(b") is refused instead of changing the wrapper's meaning.
  Result<Grammar> alone = CompileRegex(pattern);
  if (!alone.ok()) return alone.status();
  const std::string anywhere = "(?:.|\\n)*(?:" + std::string(pattern) + ")(?:.|\\n)*";
  const RegexCompileLimits limits;
  Result<Grammar> re = CompileRegex(anywhere, limits);
  if (!re.ok()) return re.status();
  // Lengths are counted on the automaton before the escapes are written out, so each character
  // set read is one decoded character whichever way JSON writes it.
  if (length.min > 0 || length.max >= 0) {
    re = WithLength(*re, length.min, length.max, limits.max_dfa_states);
    if (!re.ok()) return re.status();
  }
  EscapingCopy copy(g, name);
  const int32_t content = copy.Copy(*re);
  const int32_t string = AddRule(g, name);
  g.rules[static_cast<size_t>(string)].alternatives = {{Char('"'), Ref(content), Char('"')}};
  return string;
}

}  // namespace vt::grammar
