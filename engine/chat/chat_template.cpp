// Rendering: a tree walk over JSON values with Jinja's semantics where templates rely on
// them (undefined values, truthiness, loop variables, Python's str() and json.dumps output).
#include "engine/chat/chat_template.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "engine/chat/template_ast.h"

namespace vt {
namespace {

using chat::Expr;
using chat::ExprPtr;
using json = nlohmann::ordered_json;
using Node = ChatTemplate::Node;

// A value or Jinja's Undefined (a missing name, key or attribute).
struct Value {
  json j;
  bool defined = true;
  static Value Undefined() { return {nullptr, false}; }
};

// Errors inside rendering travel as this exception and become a Status at the API boundary.
struct RenderError {
  std::string message;
};

[[noreturn]] void Throw(const std::string& m) { throw RenderError{m}; }

// Python raises TypeError for a float index and has unbounded ints; a template is untrusted input, so
// both become render errors instead of a float-to-int conversion or signed overflow (undefined in C++).
int64_t IntOperand(const json& j, const char* what) {
  if (j.is_number_unsigned() && j.get<uint64_t>() > uint64_t(INT64_MAX)) Throw(std::string(what) + " is too large");
  if (!j.is_number_integer()) Throw(std::string(what) + " must be an integer");
  return j.get<int64_t>();
}

int64_t CheckedArithmetic(char op, int64_t x, int64_t y) {
  int64_t result = 0;
  const bool overflowed = op == '+'   ? __builtin_add_overflow(x, y, &result)
                          : op == '-' ? __builtin_sub_overflow(x, y, &result)
                                      : __builtin_mul_overflow(x, y, &result);
  if (overflowed) Throw("integer arithmetic overflows 64 bits");
  return result;
}

bool Truthy(const Value& v) {
  if (!v.defined) return false;
  const json& j = v.j;
  if (j.is_null()) return false;
  if (j.is_boolean()) return j.get<bool>();
  if (j.is_number_integer()) return j.get<int64_t>() != 0;
  if (j.is_number()) return j.get<double>() != 0.0;
  if (j.is_string()) return !j.get_ref<const std::string&>().empty();
  return !j.empty();
}

std::string PyRepr(const json& j);

// Python's json.dumps(x, ensure_ascii=False): ", " and ": " separators.
std::string PyJson(const json& j, int indent, int depth) {
  if (j.is_object() || j.is_array()) {
    if (j.empty()) return j.is_object() ? "{}" : "[]";
    const std::string nl = indent >= 0 ? "\n" + std::string(size_t(indent) * (depth + 1), ' ') : "";
    const std::string close_nl = indent >= 0 ? "\n" + std::string(size_t(indent) * depth, ' ') : "";
    const std::string sep = indent >= 0 ? "," : ", ";
    std::string out = j.is_object() ? "{" : "[";
    bool first = true;
    for (auto it = j.begin(); it != j.end(); ++it) {
      out += (first ? "" : sep) + nl;
      first = false;
      if (j.is_object()) out += json(it.key()).dump(-1, ' ', false, json::error_handler_t::replace) + ": ";
      out += PyJson(*it, indent, depth + 1);
    }
    return out + close_nl + (j.is_object() ? "}" : "]");
  }
  if (j.is_number_float()) return PyRepr(j);
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

// Python's str() of a value, as Jinja prints it.
std::string PyStr(const json& j) {
  if (j.is_string()) return j.get<std::string>();
  return PyRepr(j);
}

std::string PyRepr(const json& j) {
  if (j.is_null()) return "None";
  if (j.is_boolean()) return j.get<bool>() ? "True" : "False";
  if (j.is_number_unsigned()) return std::to_string(j.get<uint64_t>());
  if (j.is_number_integer()) return std::to_string(j.get<int64_t>());
  if (j.is_number_float()) {
    const double d = j.get<double>();
    if (std::floor(d) == d && std::fabs(d) < 1e16) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.1f", d);
      return buf;
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", d);
    return buf;
  }
  if (j.is_string()) {
    std::string s = j.get<std::string>();
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("\\'") : c == '\n' ? std::string("\\n") : std::string(1, c);
    return out + "'";
  }
  std::string out = j.is_object() ? "{" : "[";
  bool first = true;
  for (auto it = j.begin(); it != j.end(); ++it) {
    out += first ? "" : ", ";
    first = false;
    if (j.is_object()) out += PyRepr(json(it.key())) + ": ";
    out += PyRepr(*it);
  }
  return out + (j.is_object() ? "}" : "]");
}

std::string Strip(const std::string& s, const std::string& chars, bool left, bool right) {
  size_t b = 0, e = s.size();
  if (left) {
    while (b < e && chars.find(s[b]) != std::string::npos) ++b;
  }
  if (right) {
    while (e > b && chars.find(s[e - 1]) != std::string::npos) --e;
  }
  return s.substr(b, e - b);
}

const char* kWhitespace = " \t\n\r\f\v";

class Renderer {
 public:
  explicit Renderer(const json& globals) { scopes_.push_back(globals.is_object() ? globals : json::object()); }

  void Run(const Node& n, std::string& out) {
    switch (n.kind) {
      case Node::Kind::kText: out += n.text; return;
      case Node::Kind::kOutput: {
        const Value v = Eval(*n.expr);
        if (v.defined && !v.j.is_null()) out += PyStr(v.j);
        else if (v.defined) out += "None";
        return;
      }
      case Node::Kind::kSequence:
        for (const auto& c : n.children) Run(*c, out);
        return;
      case Node::Kind::kIf:
        for (const auto& [cond, body] : n.branches) {
          if (Truthy(Eval(*cond))) {
            Run(*body, out);
            return;
          }
        }
        if (n.else_body) Run(*n.else_body, out);
        return;
      case Node::Kind::kSet: {
        const Value v = Eval(*n.expr);
        if (n.target_attr.empty()) {
          scopes_.back()[n.target] = v.j;
          return;
        }
        json* ns = Find(n.target);
        if (ns == nullptr || !ns->is_object()) Throw("cannot set attribute of '" + n.target + "': not a namespace");
        (*ns)[n.target_attr] = v.j;
        return;
      }
      case Node::Kind::kFor: {
        const Value iterable = Eval(*n.expr);
        json items = json::array();
        if (iterable.j.is_array()) {
          items = iterable.j;
        } else if (iterable.j.is_object()) {
          for (auto it = iterable.j.begin(); it != iterable.j.end(); ++it) items.push_back(it.key());
        } else if (iterable.j.is_string()) {
          for (char c : iterable.j.get<std::string>()) items.push_back(std::string(1, c));
        } else if (iterable.defined && !iterable.j.is_null()) {
          Throw("cannot iterate over " + PyRepr(iterable.j));
        }
        if (n.loop_filter) {
          // Filtered first, so loop.index, length and last count only the items kept, as in Jinja.
          json kept = json::array();
          for (const json& item : items) {
            scopes_.push_back(LoopScope(n, item));
            const bool keep = Truthy(Eval(*n.loop_filter));
            scopes_.pop_back();
            if (keep) kept.push_back(item);
          }
          items = std::move(kept);
        }
        if (items.empty()) {
          if (n.else_body) Run(*n.else_body, out);
          return;
        }
        const size_t count = items.size();
        for (size_t i = 0; i < count; ++i) {
          json scope = LoopScope(n, items[i]);
          scope["loop"] = {{"index0", i},          {"index", i + 1},        {"first", i == 0},
                           {"last", i + 1 == count}, {"length", count},      {"revindex", count - i},
                           {"revindex0", count - i - 1}};
          scopes_.push_back(std::move(scope));
          Run(*n.body, out);
          scopes_.pop_back();
        }
        return;
      }
    }
  }

 private:
  // The loop variables of one item (unpacked when the loop names several).
  static json LoopScope(const Node& n, const json& item) {
    json scope = json::object();
    if (n.loop_vars.size() == 1) {
      scope[n.loop_vars[0]] = item;
    } else {
      if (!item.is_array() || item.size() != n.loop_vars.size()) Throw("cannot unpack loop item");
      for (size_t v = 0; v < n.loop_vars.size(); ++v) scope[n.loop_vars[v]] = item[v];
    }
    return scope;
  }

  json* Find(const std::string& name) {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto f = it->find(name);
      if (f != it->end()) return &*f;
    }
    return nullptr;
  }

  Value Eval(const Expr& e) {
    switch (e.kind) {
      case Expr::Kind::kLiteral: return {e.value};
      case Expr::Kind::kName: {
        json* v = Find(e.name);
        return v ? Value{*v} : Value::Undefined();
      }
      case Expr::Kind::kAttr: {
        const Value base = Eval(*e.args[0]);
        if (!base.defined) Throw("'" + Describe(*e.args[0]) + "' is undefined");
        if (base.j.is_object() && base.j.contains(e.name)) return {base.j[e.name]};
        return Value::Undefined();
      }
      case Expr::Kind::kIndex: {
        const Value base = Eval(*e.args[0]);
        if (!base.defined) Throw("'" + Describe(*e.args[0]) + "' is undefined");
        const Value key = Eval(*e.args[1]);
        if (base.j.is_object() && key.j.is_string()) {
          const std::string& k = key.j.get_ref<const std::string&>();
          return base.j.contains(k) ? Value{base.j[k]} : Value::Undefined();
        }
        if ((base.j.is_array() || base.j.is_string()) && key.j.is_number_integer()) {
          const int64_t size = base.j.is_array() ? int64_t(base.j.size()) : int64_t(base.j.get_ref<const std::string&>().size());
          int64_t i = key.j.is_number_unsigned() ? std::numeric_limits<int64_t>::max() : key.j.get<int64_t>();
          if (i < 0) i += size;
          if (i < 0 || i >= size) return Value::Undefined();
          if (base.j.is_array()) return {base.j[size_t(i)]};
          return {std::string(1, base.j.get_ref<const std::string&>()[size_t(i)])};
        }
        return Value::Undefined();
      }
      case Expr::Kind::kSlice: return Slice(e);
      case Expr::Kind::kCall: return Call(e);
      case Expr::Kind::kFilter: return Filter(e);
      case Expr::Kind::kTest: {
        const bool r = Test(e.name, Eval(*e.args[0]), {});
        return {e.negate ? !r : r};
      }
      case Expr::Kind::kUnary: {
        const Value v = Eval(*e.args[0]);
        if (e.name == "not") return {!Truthy(v)};
        if (v.j.is_number_integer()) return {CheckedArithmetic('-', 0, IntOperand(v.j, "operand"))};
        if (v.j.is_number()) return {-v.j.get<double>()};
        Throw("unary '-' needs a number");
      }
      case Expr::Kind::kBinary: return Binary(e);
      case Expr::Kind::kCond: {
        if (Truthy(Eval(*e.args[1]))) return Eval(*e.args[0]);
        return e.args[2] ? Eval(*e.args[2]) : Value::Undefined();
      }
      case Expr::Kind::kList: {
        json list = json::array();
        for (const auto& a : e.args) list.push_back(Eval(*a).j);
        return {list};
      }
      case Expr::Kind::kDict: {
        json dict = json::object();
        for (const auto& [k, v] : e.kwargs) dict[k] = Eval(*v).j;
        return {dict};
      }
    }
    Throw("unknown expression");
  }

  // Jinja's tests (`x is name`, and the test arguments of select / selectattr).
  static bool Test(const std::string& name, const Value& v, const std::vector<Value>& args) {
    if (name == "defined") return v.defined;
    if (name == "undefined") return !v.defined;
    if (name == "none") return v.defined && v.j.is_null();
    if (name == "string") return v.j.is_string();
    if (name == "number") return v.j.is_number();
    if (name == "integer") return v.j.is_number_integer();
    if (name == "mapping") return v.j.is_object();
    if (name == "sequence" || name == "iterable") return v.j.is_array() || v.j.is_string() || v.j.is_object();
    if (name == "true") return v.j.is_boolean() && v.j.get<bool>();
    if (name == "false") return v.j.is_boolean() && !v.j.get<bool>();
    if (name == "boolean") return v.j.is_boolean();
    if (name == "equalto" || name == "eq" || name == "==" || name == "ne" || name == "!=") {
      if (args.empty()) Throw("test '" + name + "' needs a value to compare with");
      const bool equal = v.defined && v.j == args[0].j;
      return name == "ne" || name == "!=" ? !equal : equal;
    }
    Throw("test '" + name + "' is not supported");
  }

  // The source-like name of an expression, for error messages ("messages[0].content").
  static std::string Describe(const Expr& e) {
    switch (e.kind) {
      case Expr::Kind::kName: return e.name;
      case Expr::Kind::kAttr: return Describe(*e.args[0]) + "." + e.name;
      case Expr::Kind::kIndex: return Describe(*e.args[0]) + "[...]";
      default: return "expression";
    }
  }

  Value Binary(const Expr& e) {
    if (e.name == "and") {
      const Value l = Eval(*e.args[0]);
      return Truthy(l) ? Eval(*e.args[1]) : l;
    }
    if (e.name == "or") {
      const Value l = Eval(*e.args[0]);
      return Truthy(l) ? l : Eval(*e.args[1]);
    }
    const Value lv = Eval(*e.args[0]), rv = Eval(*e.args[1]);
    const json &l = lv.j, &r = rv.j;
    if (e.name == "~") return {(lv.defined ? PyStr(l) : "") + (rv.defined ? PyStr(r) : "")};
    if (e.name == "==") return {l == r};
    if (e.name == "!=") return {l != r};
    if (e.name == "in") {
      if (r.is_string() && l.is_string()) return {r.get<std::string>().find(l.get<std::string>()) != std::string::npos};
      if (r.is_array()) return {std::find(r.begin(), r.end(), l) != r.end()};
      if (r.is_object() && l.is_string()) return {r.contains(l.get<std::string>())};
      return {false};
    }
    if (e.name == "+" && l.is_string() && r.is_string()) return {l.get<std::string>() + r.get<std::string>()};
    if (e.name == "+" && l.is_array() && r.is_array()) {
      json out = l;
      for (const auto& x : r) out.push_back(x);
      return {out};
    }
    if (!l.is_number() || !r.is_number()) {
      if (e.name == "<" && l.is_string() && r.is_string()) return {l.get<std::string>() < r.get<std::string>()};
      if (e.name == ">" && l.is_string() && r.is_string()) return {l.get<std::string>() > r.get<std::string>()};
      Throw("operator '" + e.name + "' cannot combine " + PyRepr(l) + " and " + PyRepr(r));
    }
    const bool ints = l.is_number_integer() && r.is_number_integer();
    const double a = l.get<double>(), b = r.get<double>();
    if (e.name == "<") return {a < b};
    if (e.name == ">") return {a > b};
    if (e.name == "<=") return {a <= b};
    if (e.name == ">=") return {a >= b};
    if (e.name == "/" && b == 0) Throw("division by zero");
    if (!ints) {
      if (e.name == "+") return {a + b};
      if (e.name == "-") return {a - b};
      if (e.name == "*") return {a * b};
      if (e.name == "/") return {a / b};
      Throw("operator '" + e.name + "' is not supported here");
    }
    const int64_t x = IntOperand(l, "left operand"), y = IntOperand(r, "right operand");
    if (e.name == "+" || e.name == "-" || e.name == "*") return {CheckedArithmetic(e.name[0], x, y)};
    if (e.name == "/") return {a / b};
    if ((e.name == "//" || e.name == "%") && y == 0) Throw("integer division or modulo by zero");
    if ((e.name == "//" || e.name == "%") && x == INT64_MIN && y == -1) Throw("integer arithmetic overflows 64 bits");
    if (e.name == "//") {
      const int64_t q = x / y;  // Python floors; C++ truncates toward zero.
      return {(x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q};
    }
    if (e.name == "%") {
      const int64_t m = x % y;
      return {m != 0 && ((m < 0) != (y < 0)) ? m + y : m};
    }
    Throw("operator '" + e.name + "' is not supported here");
  }

  Value Slice(const Expr& e) {
    const Value base = Eval(*e.args[0]);
    const bool is_str = base.j.is_string();
    if (!is_str && !base.j.is_array()) Throw("cannot slice " + PyRepr(base.j));
    const std::string str = is_str ? base.j.get<std::string>() : "";
    const int64_t n = is_str ? int64_t(str.size()) : int64_t(base.j.size());
    auto part = [&](int i, int64_t fallback) {
      if (!e.args[i]) return fallback;
      const Value v = Eval(*e.args[i]);
      return v.j.is_null() ? fallback : IntOperand(v.j, "slice index");
    };
    const int64_t step = part(3, 1);
    if (step == 0) Throw("slice step cannot be zero");
    auto clamp = [&](int64_t i, bool is_stop) {
      if (i < 0) i += n;
      if (step > 0) return std::clamp<int64_t>(i, 0, n);
      return std::clamp<int64_t>(i, -1, n - 1) + (is_stop ? 0 : 0);
    };
    int64_t start = e.args[1] ? clamp(part(1, 0), false) : (step > 0 ? 0 : n - 1);
    int64_t stop = e.args[2] ? clamp(part(2, 0), true) : (step > 0 ? n : -1);
    json out = json::array();
    std::string sout;
    for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
      if (is_str) sout += str[size_t(i)];
      else out.push_back(base.j[size_t(i)]);
    }
    return is_str ? Value{sout} : Value{out};
  }

  std::vector<Value> Args(const Expr& e, size_t from) {
    std::vector<Value> out;
    for (size_t i = from; i < e.args.size(); ++i) out.push_back(Eval(*e.args[i]));
    return out;
  }

  Value Call(const Expr& e) {
    const Expr& callee = *e.args[0];
    if (callee.kind == Expr::Kind::kName) {
      if (callee.name == "raise_exception") {
        const std::vector<Value> a = Args(e, 1);
        Throw(a.empty() ? "raise_exception() called" : PyStr(a[0].j));
      }
      if (callee.name == "namespace") {
        json ns = json::object();
        for (const auto& [k, v] : e.kwargs) ns[k] = Eval(*v).j;
        return {ns};
      }
      if (callee.name == "range") {
        const std::vector<Value> a = Args(e, 1);
        int64_t start = 0, stop = 0;
        if (a.size() == 1) stop = IntOperand(a[0].j, "range() bound");
        if (a.size() >= 2) start = IntOperand(a[0].j, "range() bound"), stop = IntOperand(a[1].j, "range() bound");
        int64_t count;
        if (__builtin_sub_overflow(stop, start, &count) || count > 100000) Throw("range() of more than 100000 values");
        json out = json::array();
        for (int64_t i = start; i < stop; ++i) out.push_back(i);
        return {out};
      }
      Throw("function '" + callee.name + "' is not supported");
    }
    if (callee.kind != Expr::Kind::kAttr) Throw("only functions and methods can be called");
    const Value self = Eval(*callee.args[0]);
    const std::vector<Value> a = Args(e, 1);
    const std::string& m = callee.name;
    if (self.j.is_string()) {
      const std::string s = self.j.get<std::string>();
      auto arg = [&](size_t i) { return i < a.size() && a[i].j.is_string() ? a[i].j.get<std::string>() : std::string(); };
      if (m == "startswith") return {s.rfind(arg(0), 0) == 0};
      if (m == "endswith") return {s.size() >= arg(0).size() && s.compare(s.size() - arg(0).size(), arg(0).size(), arg(0)) == 0};
      if (m == "strip" || m == "lstrip" || m == "rstrip") {
        const std::string chars = a.empty() || a[0].j.is_null() ? kWhitespace : arg(0);
        return {Strip(s, chars, m != "rstrip", m != "lstrip")};
      }
      if (m == "lower" || m == "upper") {
        std::string out = s;
        for (char& c : out) c = m == "lower" ? char(std::tolower(static_cast<unsigned char>(c))) : char(std::toupper(static_cast<unsigned char>(c)));
        return {out};
      }
      if (m == "title" || m == "capitalize") {
        std::string out = s;
        bool start = true;
        for (char& c : out) {
          c = start ? char(std::toupper(static_cast<unsigned char>(c))) : char(std::tolower(static_cast<unsigned char>(c)));
          start = m == "title" ? !std::isalpha(static_cast<unsigned char>(c)) : false;
        }
        return {out};
      }
      if (m == "replace") {
        std::string out = s;
        const std::string from = arg(0), to = arg(1);
        if (from.empty()) return {out};
        for (size_t p = out.find(from); p != std::string::npos; p = out.find(from, p + to.size())) out.replace(p, from.size(), to);
        return {out};
      }
      if (m == "split") {
        json out = json::array();
        if (a.empty() || a[0].j.is_null()) {
          size_t p = 0;
          while (true) {
            const size_t b = s.find_first_not_of(kWhitespace, p);
            if (b == std::string::npos) break;
            const size_t end = s.find_first_of(kWhitespace, b);
            out.push_back(s.substr(b, end == std::string::npos ? std::string::npos : end - b));
            if (end == std::string::npos) break;
            p = end;
          }
          return {out};
        }
        const std::string sep = arg(0);
        if (sep.empty()) Throw("split() separator is empty");
        size_t p = 0;
        for (size_t f = s.find(sep); f != std::string::npos; p = f + sep.size(), f = s.find(sep, p)) out.push_back(s.substr(p, f - p));
        out.push_back(s.substr(p));
        return {out};
      }
    }
    if (self.j.is_object()) {
      if (m == "items") {
        json out = json::array();
        for (auto it = self.j.begin(); it != self.j.end(); ++it) out.push_back(json::array({it.key(), *it}));
        return {out};
      }
      if (m == "keys" || m == "values") {
        json out = json::array();
        for (auto it = self.j.begin(); it != self.j.end(); ++it) out.push_back(m == "keys" ? json(it.key()) : *it);
        return {out};
      }
      if (m == "get") {
        if (a.empty() || !a[0].j.is_string()) Throw("get() needs a key");
        const std::string k = a[0].j.get<std::string>();
        if (self.j.contains(k)) return {self.j[k]};
        return a.size() > 1 ? a[1] : Value{nullptr};
      }
    }
    Throw("method '" + m + "' is not supported on " + PyRepr(self.j));
  }

  Value Filter(const Expr& e) {
    std::vector<std::pair<std::string, Value>> kwargs;
    for (const auto& [k, x] : e.kwargs) kwargs.emplace_back(k, Eval(*x));
    return ApplyFilter(e.name, Eval(*e.args[0]), Args(e, 1), kwargs);
  }

  // select / reject (by a test of each item) and selectattr / rejectattr (of an attribute of each).
  static Value SelectItems(const std::string& f, const Value& v, const std::vector<Value>& a) {
    const bool by_attribute = f == "selectattr" || f == "rejectattr";
    const bool keep_passing = f == "select" || f == "selectattr";
    if (by_attribute && (a.empty() || !a[0].j.is_string()))
      Throw("filter '" + f + "' needs an attribute name");
    const size_t test_at = by_attribute ? 1 : 0;
    json out = json::array();
    if (!v.j.is_array()) return {out};
    for (const json& item : v.j) {
      Value subject{item};
      if (by_attribute) {
        const std::string& attr = a[0].j.get_ref<const std::string&>();
        subject = item.is_object() && item.contains(attr) ? Value{item[attr]} : Value::Undefined();
      }
      bool passed;
      if (a.size() <= test_at) {
        passed = Truthy(subject);
      } else {
        if (!a[test_at].j.is_string()) Throw("filter '" + f + "' needs a test name");
        passed = Test(a[test_at].j.get<std::string>(), subject,
                      std::vector<Value>(a.begin() + long(test_at) + 1, a.end()));
      }
      if (passed == keep_passing) out.push_back(item);
    }
    return {out};
  }

  Value ApplyFilter(const std::string& f, const Value& v, const std::vector<Value>& a,
                    const std::vector<std::pair<std::string, Value>>& kwargs) {
    if (f == "length" || f == "count") {
      if (v.j.is_string()) return {int64_t(v.j.get_ref<const std::string&>().size())};
      if (v.j.is_array() || v.j.is_object()) return {int64_t(v.j.size())};
      return {int64_t(0)};
    }
    if (f == "trim") return {Strip(v.defined ? PyStr(v.j) : "", kWhitespace, true, true)};
    if (f == "string") return {v.defined ? PyStr(v.j) : ""};
    if (f == "lower" || f == "upper") {
      std::string s = PyStr(v.j);
      for (char& c : s) c = f == "lower" ? char(std::tolower(static_cast<unsigned char>(c))) : char(std::toupper(static_cast<unsigned char>(c)));
      return {s};
    }
    if (f == "tojson") {
      int indent = -1;
      for (const auto& [k, x] : kwargs) {
        if (k == "indent") indent = int(std::clamp<int64_t>(IntOperand(x.j, "indent"), -1, 64));
      }
      if (!a.empty() && a[0].j.is_number_integer()) indent = int(std::clamp<int64_t>(IntOperand(a[0].j, "indent"), -1, 64));
      return {PyJson(v.j, indent, 0)};
    }
    if (f == "list") {
      if (v.j.is_array()) return v;
      json out = json::array();
      if (v.j.is_string()) for (char c : v.j.get<std::string>()) out.push_back(std::string(1, c));
      return {out};
    }
    if (f == "first" || f == "last") {
      if (v.j.is_array() && !v.j.empty()) return {f == "first" ? v.j.front() : v.j.back()};
      return Value::Undefined();
    }
    if (f == "default" || f == "d") {
      if (v.defined && !(a.size() > 1 && Truthy(a[1]) && !Truthy(v))) return v;
      return a.empty() ? Value{""} : a[0];
    }
    if (f == "join") {
      const std::string sep = a.empty() ? "" : PyStr(a[0].j);
      std::string out;
      bool first = true;
      for (const auto& x : v.j) {
        out += (first ? "" : sep) + PyStr(x);
        first = false;
      }
      return {out};
    }
    if (f == "items" && v.j.is_object()) {
      json out = json::array();
      for (auto it = v.j.begin(); it != v.j.end(); ++it) out.push_back(json::array({it.key(), *it}));
      return {out};
    }
    if (f == "select" || f == "reject" || f == "selectattr" || f == "rejectattr") return SelectItems(f, v, a);
    if (f == "map") {
      // map(attribute='x') takes an attribute of each item (an empty string where it has none, as
      // Jinja's Undefined renders); map('name', ...) applies a filter to each.
      json out = json::array();
      if (!v.j.is_array()) return {out};
      for (const auto& [k, x] : kwargs) {
        if (k != "attribute") continue;
        if (!x.j.is_string()) Throw("map's attribute must be a string");
        for (const json& item : v.j) {
          const std::string& attr = x.j.get_ref<const std::string&>();
          out.push_back(item.is_object() && item.contains(attr) ? item[attr] : json(""));
        }
        return {out};
      }
      if (a.empty() || !a[0].j.is_string()) Throw("filter 'map' needs attribute= or a filter name");
      const std::string name = a[0].j.get<std::string>();
      if (name == "map") Throw("filter 'map' cannot map itself");
      const std::vector<Value> rest(a.begin() + 1, a.end());
      for (const json& item : v.j) out.push_back(ApplyFilter(name, Value{item}, rest, {}).j);
      return {out};
    }
    Throw("filter '" + f + "' is not supported");
  }

  std::vector<json> scopes_;
};

}  // namespace

Result<std::shared_ptr<const ChatTemplate>> ChatTemplate::Parse(const std::string& source) {
  Result<std::shared_ptr<const Node>> root = chat::ParseTemplate(source);
  if (!root.ok()) return root.status();
  auto t = std::shared_ptr<ChatTemplate>(new ChatTemplate());
  t->root_ = *root;
  t->source_ = source;
  return std::shared_ptr<const ChatTemplate>(t);
}

Result<std::string> ChatTemplate::Render(const json& context) const {
  std::string out;
  try {
    Renderer r(context);
    r.Run(*root_, out);
  } catch (const RenderError& e) {
    return InvalidArgument("chat template: " + e.message);
  } catch (const json::exception& e) {
    return InvalidArgument(std::string("chat template: ") + e.what());
  } catch (const std::exception& e) {  // e.g. a value out of a type's range
    return InvalidArgument(std::string("chat template: ") + e.what());
  }
  return out;
}

}  // namespace vt
