#include "engine/grammar/json_schema_grammar.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/grammar/integer_range.h"
#include "engine/grammar/json_string_pattern.h"

namespace vt::grammar {

namespace {

using nlohmann::json;

// Repetition bounds beyond this would only grow the grammar; nobody constrains an output so.
constexpr int64_t kMaxBound = 1000;
constexpr int kMaxDigits = kMaxIntegerDigits;  // fraction digits are bounded alike

const std::set<std::string> kAnnotations = {"title", "description", "default", "examples", "$schema",
                                            "$id", "$comment", "$defs", "definitions"};
const std::set<std::string> kSupported = {"type", "properties", "required", "additionalProperties", "items",
                                          "minItems", "maxItems", "enum", "const", "anyOf", "oneOf",
                                          "$ref", "minLength", "maxLength", "pattern", "minimum", "maximum",
                                          "exclusiveMinimum", "exclusiveMaximum"};
const char* const kNumericBounds[] = {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"};

class SchemaCompiler {
 public:
  explicit SchemaCompiler(const json& root) : root_(root) {}

  Result<Grammar> Compile() {
    Result<int32_t> root = Schema(root_, "#");
    if (!root.ok()) return root.status();
    g_.root = *root;
    return std::move(g_);
  }

  Grammar AnyObject() {
    g_.root = ObjectAny();
    return std::move(g_);
  }

 private:
  int32_t NewRule(const std::string& name, std::vector<Sequence> alternatives) {
    const int32_t id = AddRule(g_, name);
    g_.rules[size_t(id)].alternatives = std::move(alternatives);
    return id;
  }

  static Sequence Cat(std::initializer_list<Sequence> parts) {
    Sequence out;
    for (const Sequence& p : parts) out.insert(out.end(), p.begin(), p.end());
    return out;
  }

  // Shared rules, made on first use.
  template <typename Make>
  int32_t Cached(const std::string& name, Make make) {
    auto it = shared_.find(name);
    if (it != shared_.end()) return it->second;
    int32_t id;
    if constexpr (std::is_member_function_pointer_v<Make>) {
      id = (this->*make)();
    } else {
      id = make();
    }
    shared_[name] = id;
    return id;
  }
  int32_t Ws() { return Cached("ws", &SchemaCompiler::MakeWs); }
  int32_t MakeWs() { return NewRule("ws", {{}, Literal(" ")}); }
  int32_t StringChar() { return Cached("char", &SchemaCompiler::MakeStringChar); }
  int32_t MakeStringChar() {
    const Element hex = Chars({{'0', '9'}, {'a', 'f'}, {'A', 'F'}});
    return NewRule("char", {{Chars({{0x20, 0x21}, {0x23, 0x5B}, {0x5D, 0x10FFFF}})},
                            {Char('\\'), Chars({{'"', '"'}, {'\\', '\\'}, {'/', '/'}, {'b', 'b'}, {'f', 'f'},
                                                {'n', 'n'}, {'r', 'r'}, {'t', 't'}})},
                            {Char('\\'), Char('u'), hex, hex, hex, hex}});
  }
  int32_t StringChars() { return Cached("chars", &SchemaCompiler::MakeStringChars); }
  int32_t MakeStringChars() {
    const int32_t chars = AddRule(g_, "chars");
    g_.rules[size_t(chars)].alternatives = {{Ref(StringChar()), Ref(chars)}, {}};
    return chars;
  }
  int32_t AnyString() { return Cached("string", &SchemaCompiler::MakeAnyString); }
  int32_t MakeAnyString() { return NewRule("string", {{Char('"'), Ref(StringChars()), Char('"')}}); }
  // Up to n more of `element`: opt(n) ::= element opt(n - 1) | ε.
  int32_t UpTo(const Element& element, int64_t n, const std::string& name) {
    int32_t tail = NewRule(name + "-0", {{}});
    for (int64_t i = 1; i <= n; ++i) tail = NewRule(name + "-" + std::to_string(i), {{element, Ref(tail)}, {}});
    return tail;
  }
  int32_t Digits() { return Cached("digits", &SchemaCompiler::MakeDigits); }
  int32_t MakeDigits() { return UpTo(Chars({{'0', '9'}}), kMaxDigits - 1, "digits"); }
  int32_t Integer() { return Cached("integer", &SchemaCompiler::MakeInteger); }
  int32_t MakeInteger() {
    const int32_t magnitude = NewRule("magnitude", {{Char('0')}, {Chars({{'1', '9'}}), Ref(Digits())}});
    return NewRule("integer", {{Ref(magnitude)}, {Char('-'), Ref(magnitude)}});
  }
  // Exactly k digits 0-9, one rule per k (shared by every bounded integer).
  Element AnyDigits(int k) {
    const std::string name = "digits=" + std::to_string(k);
    return Ref(Cached(name, [&] {
      const Sequence body = k == 1 ? Sequence{Chars({{'0', '9'}})} : Sequence{Chars({{'0', '9'}}), AnyDigits(k - 1)};
      return NewRule(name, {body});
    }));
  }
  // An integer within `minimum` / `maximum` and their exclusive forms (a number, or draft 4's
  // boolean beside the bound); a fractional bound rounds inward. Without bounds: any integer. Long
  // double holds every int64 and every double exactly, so no bound is rounded on the way.
  Result<int32_t> BoundedInteger(const json& s, const std::string& path) {
    constexpr long double kEdge = static_cast<long double>(kMaxIntegerMagnitude) + 1;
    long double lo = -kEdge, hi = kEdge;
    bool bounded = false;
    for (const char* key : kNumericBounds) {
      if (!s.contains(key)) continue;
      const json& v = s[key];
      const std::string k = key;
      const bool lower = k == "minimum" || k == "exclusiveMinimum";
      if (v.is_boolean()) {  // draft 4: exclusiveMinimum: true makes `minimum` exclusive
        if (k.rfind("exclusive", 0) != 0 || !s.contains(lower ? "minimum" : "maximum")) {
          return Unsupported("'" + k + "' must be a number", path);
        }
        continue;
      }
      if (!v.is_number() || (v.is_number_float() && !std::isfinite(v.get<double>()))) {
        return Unsupported("'" + k + "' must be a number", path);
      }
      const long double x = v.is_number_unsigned()  ? static_cast<long double>(v.get<uint64_t>())
                            : v.is_number_integer() ? static_cast<long double>(v.get<int64_t>())
                                                    : static_cast<long double>(v.get<double>());
      const bool exclusive = k.rfind("exclusive", 0) == 0 || s.value(lower ? "exclusiveMinimum" : "exclusiveMaximum", json()) == true;
      bounded = true;
      if (lower) {
        lo = std::max(lo, exclusive ? std::floor(x) + 1 : std::ceil(x));
      } else {
        hi = std::min(hi, exclusive ? std::ceil(x) - 1 : std::floor(x));
      }
    }
    if (!bounded) return Integer();
    lo = std::max(lo, -static_cast<long double>(kMaxIntegerMagnitude));
    hi = std::min(hi, static_cast<long double>(kMaxIntegerMagnitude));
    if (lo > hi) {
      return Unsupported("no integer of at most " + std::to_string(kMaxIntegerDigits) +
                             " digits lies within the schema's bounds",
                         path);
    }
    return NewRule(path, IntegerRangeAlternatives(static_cast<int64_t>(lo), static_cast<int64_t>(hi),
                                                  [this](int k) { return AnyDigits(k); }));
  }
  int32_t Number() { return Cached("number", &SchemaCompiler::MakeNumber); }
  int32_t MakeNumber() {
    const int32_t fraction = NewRule("fraction", {{}, {Char('.'), Chars({{'0', '9'}}), Ref(Digits())}});
    const int32_t exponent_digits = UpTo(Chars({{'0', '9'}}), 2, "exponent-digits");
    const int32_t exponent = NewRule(
        "exponent", {{}, {Chars({{'e', 'e'}, {'E', 'E'}}), Chars({{'+', '+'}, {'-', '-'}}), Chars({{'0', '9'}}),
                          Ref(exponent_digits)},
                     {Chars({{'e', 'e'}, {'E', 'E'}}), Chars({{'0', '9'}}), Ref(exponent_digits)}});
    return NewRule("number", {{Ref(Integer()), Ref(fraction), Ref(exponent)}});
  }
  int32_t AnyValue() { return Cached("value", &SchemaCompiler::MakeAnyValue); }
  int32_t MakeAnyValue() {
    const int32_t value = AddRule(g_, "value");
    shared_["value"] = value;  // arrays and objects of values refer back to it
    g_.rules[size_t(value)].alternatives = {{Ref(ObjectAny())}, {Ref(ArrayOf(value, 0, -1, "array"))},
                                            {Ref(AnyString())}, {Ref(Number())}, Literal("true"),
                                            Literal("false"), Literal("null")};
    return value;
  }
  int32_t ObjectAny() { return Cached("object", &SchemaCompiler::MakeObjectAny); }
  int32_t MakeObjectAny() {
    const int32_t object = AddRule(g_, "object");
    shared_["object"] = object;  // a value may be an object
    ObjectOf(object, AnyValue(), "");
    return object;
  }
  // Fills rule `object`: any keys, each with a value of rule `value`.
  void ObjectOf(int32_t object, int32_t value, const std::string& name) {
    const int32_t member = NewRule(name + "member", {{Ref(AnyString()), Char(':'), Ref(Ws()), Ref(value)}});
    const int32_t more = AddRule(g_, name + "members");
    g_.rules[size_t(more)].alternatives = {{Char(','), Ref(Ws()), Ref(member), Ref(more)}, {}};
    g_.rules[size_t(object)].alternatives = {{Char('{'), Char('}')}, {Char('{'), Ref(member), Ref(more), Char('}')}};
  }

  // "[" items "]" with between min and max (-1: no limit) items of rule `item`.
  int32_t ArrayOf(int32_t item, int64_t min, int64_t max, const std::string& name) {
    if (max == 0) return NewRule(name, {{Char('['), Char(']')}});
    const Sequence next = {Char(','), Ref(Ws()), Ref(item)};
    int32_t unbounded = -1;
    if (max < 0) {
      unbounded = AddRule(g_, name + "-more");
      g_.rules[size_t(unbounded)].alternatives = {Cat({next, {Ref(unbounded)}}), {}};
    }
    // tail(k): what may follow the k-th item.
    const int64_t last = max < 0 ? min : max;
    int32_t tail = max < 0 ? unbounded : NewRule(name + "-end", {{}});
    for (int64_t k = last - 1; k >= 1; --k) {
      const Sequence with = Cat({next, {Ref(tail)}});
      tail = k < min ? NewRule(name + "-" + std::to_string(k), {with})
                     : NewRule(name + "-" + std::to_string(k), {with, {}});
    }
    if (min == 0) return NewRule(name, {{Char('['), Char(']')}, {Char('['), Ref(item), Ref(tail), Char(']')}});
    return NewRule(name, {{Char('['), Ref(item), Ref(tail), Char(']')}});
  }

  // A string matching `pattern` (json_string_pattern.h), of a length from `min` to `max`. Errors
  // name every keyword that shaped the automaton, as any of them may be what to change.
  Result<int32_t> Pattern(const json& s, int64_t min, int64_t max, const std::string& path) {
    if (!s["pattern"].is_string()) return Unsupported("'pattern' must be a string", path);
    std::string keywords = "'pattern'";
    for (const char* key : {"minLength", "maxLength"}) {
      if (s.contains(key)) keywords += std::string(" with '") + key + "'";
    }
    Result<int32_t> rule = AddJsonStringPattern(g_, s["pattern"].get<std::string>(), {min, max}, path);
    if (!rule.ok()) return Unsupported(keywords + ": " + rule.status().message(), path);
    return *rule;
  }

  static Status Unsupported(const std::string& what, const std::string& path) {
    return InvalidArgument("JSON schema at " + path + ": " + what);
  }

  Result<int64_t> Bound(const json& s, const char* key, int64_t fallback, const std::string& path) {
    if (!s.contains(key)) return fallback;
    const json& v = s[key];
    if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > kMaxBound) {
      return Unsupported(std::string("'") + key + "' must be an integer from 0 to " + std::to_string(kMaxBound), path);
    }
    return v.get<int64_t>();
  }

  Result<int32_t> Ref(const std::string& ref, const std::string& path) {
    auto it = refs_.find(ref);
    if (it != refs_.end()) return it->second;
    const json* target = nullptr;
    for (const char* prefix : {"#/$defs/", "#/definitions/"}) {
      const std::string p = prefix;
      if (ref.compare(0, p.size(), p) != 0) continue;
      const std::string name = ref.substr(p.size());
      const std::string section = p.substr(2, p.size() - 3);
      if (root_.contains(section) && root_[section].is_object() && root_[section].contains(name)) {
        target = &root_[section][name];
      }
    }
    if (target == nullptr) return Unsupported("'$ref' " + ref + " does not name an entry of #/$defs or #/definitions", path);
    // The rule exists before its body, so a schema may refer to itself.
    const int32_t id = AddRule(g_, ref);
    refs_[ref] = id;
    Result<int32_t> body = Schema(*target, ref);
    if (!body.ok()) return body.status();
    g_.rules[size_t(id)].alternatives = {{Ref(*body)}};
    return id;
  }
  static Element Ref(int32_t rule) { return grammar::Ref(rule); }

  // A value of `types` (JSON Schema's sense: an integral number is an integer).
  static bool OfType(const json& v, const std::vector<std::string>& types) {
    for (const std::string& t : types) {
      if ((t == "null" && v.is_null()) || (t == "boolean" && v.is_boolean()) || (t == "object" && v.is_object()) ||
          (t == "array" && v.is_array()) || (t == "string" && v.is_string()) || (t == "number" && v.is_number()) ||
          (t == "integer" && (v.is_number_integer() || (v.is_number_float() && std::isfinite(v.get<double>()) &&
                                                        std::floor(v.get<double>()) == v.get<double>())))) {
        return true;
      }
    }
    return false;
  }

  // `type` as a list; empty when absent.
  Result<std::vector<std::string>> Types(const json& s, const std::string& path) {
    static const std::set<std::string> kTypes = {"null", "boolean", "object", "array", "number", "integer", "string"};
    std::vector<std::string> types;
    if (!s.contains("type")) return types;
    const json& t = s["type"];
    const json list = t.is_string() ? json::array({t}) : t;
    if (!list.is_array() || list.empty()) return Unsupported("'type' must be a string or a list of strings", path);
    for (const json& e : list) {
      if (!e.is_string()) return Unsupported("'type' must be a string or a list of strings", path);
      if (kTypes.count(e.get<std::string>()) == 0) return Unsupported("unknown type '" + e.get<std::string>() + "'", path);
      types.push_back(e.get<std::string>());
    }
    return types;
  }

  // The types a schema without `type` is about, from the keywords that apply to one type only. JSON
  // Schema lets every other type through such a schema, but a string is what `pattern` means, an
  // object what `properties` means: the grammar generates those alone.
  static std::vector<std::string> Implied(const json& s) {
    std::vector<std::string> types;
    const std::pair<const char*, std::vector<const char*>> kImplied[] = {
        {"object", {"properties", "required", "additionalProperties"}},
        {"array", {"items", "minItems", "maxItems"}},
        {"string", {"pattern", "minLength", "maxLength"}},
        {"number", {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}}};
    for (const auto& [type, keys] : kImplied) {
      for (const char* key : keys) {
        if (s.contains(key)) {
          types.push_back(type);
          break;
        }
      }
    }
    return types;
  }

  Result<int32_t> Schema(const json& s, const std::string& path) {
    if (s.is_boolean()) {
      if (s.get<bool>()) return AnyValue();
      return Unsupported("the schema false admits no value", path);
    }
    if (!s.is_object()) return Unsupported("a schema must be an object or a boolean", path);
    for (const auto& [key, value] : s.items()) {
      if (kSupported.count(key) == 0 && kAnnotations.count(key) == 0) {
        return Unsupported("the keyword '" + key + "' is not supported", path);
      }
    }
    // These keywords give the schema its one form; another constraint beside one would need the
    // intersection of both, so it is refused by name rather than ignored. `type` beside `enum` or
    // `const` filters their values.
    for (const std::string form : {"$ref", "const", "enum", "anyOf", "oneOf"}) {
      if (!s.contains(form)) continue;
      for (const auto& [key, value] : s.items()) {
        if (key == form || kAnnotations.count(key) > 0 || (key == "type" && (form == "const" || form == "enum"))) continue;
        return Unsupported("'" + key + "' beside '" + form + "' is not supported", path);
      }
    }
    if (s.contains("$ref")) {
      if (!s["$ref"].is_string()) return Unsupported("'$ref' must be a string", path);
      return Ref(s["$ref"].get<std::string>(), path);
    }
    Result<std::vector<std::string>> types = Types(s, path);
    if (!types.ok()) return types.status();
    if (s.contains("const") || s.contains("enum")) {
      const char* key = s.contains("const") ? "const" : "enum";
      const json values = s.contains("const") ? json::array({s["const"]}) : s["enum"];
      if (!values.is_array() || values.empty()) return Unsupported("'enum' must be a non-empty array", path);
      std::vector<Sequence> alternatives;
      for (const json& v : values) {
        if (types->empty() || OfType(v, *types)) alternatives.push_back(ValueText(v));
      }
      if (alternatives.empty()) return Unsupported(std::string("'") + key + "' has no value of the 'type'", path);
      return NewRule(path, std::move(alternatives));
    }
    for (const char* key : {"anyOf", "oneOf"}) {
      if (!s.contains(key)) continue;
      if (!s[key].is_array() || s[key].empty()) return Unsupported(std::string("'") + key + "' must be a non-empty array", path);
      std::vector<Sequence> alternatives;
      for (size_t i = 0; i < s[key].size(); ++i) {
        Result<int32_t> sub = Schema(s[key][i], path + "/" + key + "/" + std::to_string(i));
        if (!sub.ok()) return sub.status();
        alternatives.push_back({Ref(*sub)});
      }
      return NewRule(path, std::move(alternatives));
    }
    if (types->empty()) *types = Implied(s);
    if (types->empty()) return AnyValue();
    std::vector<Sequence> alternatives;
    for (const std::string& type : *types) {
      Result<int32_t> r = Typed(type, s, path);
      if (!r.ok()) return r.status();
      alternatives.push_back({Ref(*r)});
    }
    return NewRule(path, std::move(alternatives));
  }

  // A JSON value written as the grammar writes JSON: compact, or one space after ':' and ','.
  Sequence ValueText(const json& v) {
    if (!v.is_structured() || v.empty()) return Literal(v.dump());
    Sequence out = {Char(v.is_object() ? '{' : '[')};
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (it != v.begin()) out = Cat({out, {Char(','), Ref(Ws())}});
      if (v.is_object()) out = Cat({out, Literal(json(it.key()).dump()), {Char(':'), Ref(Ws())}});
      out = Cat({out, ValueText(*it)});
    }
    out.push_back(Char(v.is_object() ? '}' : ']'));
    return out;
  }

  Result<int32_t> Typed(const std::string& type, const json& s, const std::string& path) {
    if (type == "string") {
      Result<int64_t> min = Bound(s, "minLength", 0, path), max = Bound(s, "maxLength", -1, path);
      if (!min.ok()) return min.status();
      if (!max.ok()) return max.status();
      if (*max >= 0 && *max < *min) return Unsupported("'maxLength' is below 'minLength'", path);
      if (s.contains("pattern")) return Pattern(s, *min, *max, path);
      if (*min == 0 && *max < 0) return AnyString();
      Sequence body = {Char('"')};
      for (int64_t i = 0; i < *min; ++i) body.push_back(Ref(StringChar()));
      if (*max < 0) {
        body.push_back(Ref(StringChars()));
      } else {
        body.push_back(Ref(UpTo(Ref(StringChar()), *max - *min, path + "/chars")));
      }
      body.push_back(Char('"'));
      return NewRule(path, {body});
    }
    if (type == "integer") return BoundedInteger(s, path);
    if (type == "number") {
      for (const char* key : kNumericBounds) {
        if (s.contains(key)) {
          return Unsupported(std::string("'") + key + "' bounds integers only: give the value \"type\": \"integer\"",
                             path);
        }
      }
      return Number();
    }
    if (type == "boolean") return NewRule(path, {Literal("true"), Literal("false")});
    if (type == "null") return NewRule(path, {Literal("null")});
    if (type == "array") {
      int32_t item = -1;
      if (s.contains("items")) {
        Result<int32_t> r = Schema(s["items"], path + "/items");
        if (!r.ok()) return r.status();
        item = *r;
      } else {
        item = AnyValue();
      }
      Result<int64_t> min = Bound(s, "minItems", 0, path), max = Bound(s, "maxItems", -1, path);
      if (!min.ok()) return min.status();
      if (!max.ok()) return max.status();
      if (*max >= 0 && *max < *min) return Unsupported("'maxItems' is below 'minItems'", path);
      return ArrayOf(item, *min, *max, path);
    }
    return Object(s, path);  // Types() admits no other name
  }

  Result<int32_t> Object(const json& s, const std::string& path) {
    const json none = json::object();
    const json& props = s.contains("properties") ? s["properties"] : none;
    if (!props.is_object()) return Unsupported("'properties' must be an object", path);
    std::set<std::string> required;
    if (s.contains("required")) {
      if (!s["required"].is_array()) return Unsupported("'required' must be an array of names", path);
      for (const json& r : s["required"]) {
        if (!r.is_string() || !props.contains(r.get<std::string>())) {
          return Unsupported("'required' names a property that 'properties' does not define", path);
        }
        required.insert(r.get<std::string>());
      }
    }
    if (!s.contains("properties")) return Additional(s, path);
    struct Member {
      Sequence key_value;
      bool required;
    };
    std::vector<Member> members;
    for (const auto& [name, sub] : props.items()) {
      Result<int32_t> value = Schema(sub, path + "/properties/" + name);
      if (!value.ok()) return value.status();
      members.push_back({Cat({Literal(json(name).dump()), {Char(':'), Ref(Ws()), Ref(*value)}}), required.count(name) > 0});
    }
    // body(i, comma): properties i.. when `comma` says one was already written.
    std::map<std::pair<size_t, bool>, int32_t> bodies;
    for (size_t i = members.size() + 1; i-- > 0;) {
      for (bool comma : {false, true}) {
        if (i == members.size()) {
          bodies[{i, comma}] = NewRule(path + "/end", {{}});
          continue;
        }
        Sequence with = comma ? Sequence{Char(','), Ref(Ws())} : Sequence{};
        with = Cat({with, members[i].key_value, {Ref(bodies[{i + 1, true}])}});
        std::vector<Sequence> alternatives = {with};
        if (!members[i].required) alternatives.push_back({Ref(bodies[{i + 1, comma}])});
        bodies[{i, comma}] = NewRule(path + "/" + std::to_string(i), std::move(alternatives));
      }
    }
    return NewRule(path, {{Char('{'), Ref(bodies[{0, false}]), Char('}')}});
  }

  // An object without `properties`: its members are what `additionalProperties` admits, any
  // value when it is absent or true, none when it is false.
  Result<int32_t> Additional(const json& s, const std::string& path) {
    if (!s.contains("additionalProperties") || s["additionalProperties"] == true) return ObjectAny();
    if (s["additionalProperties"] == false) return NewRule(path, {{Char('{'), Char('}')}});
    Result<int32_t> value = Schema(s["additionalProperties"], path + "/additionalProperties");
    if (!value.ok()) return value.status();
    const int32_t object = AddRule(g_, path);
    ObjectOf(object, *value, path + "/");
    return object;
  }

  const json& root_;
  Grammar g_;
  std::map<std::string, int32_t> shared_;
  std::map<std::string, int32_t> refs_;
};

}  // namespace

Result<Grammar> CompileJsonSchema(const nlohmann::json& schema) { return SchemaCompiler(schema).Compile(); }

Grammar JsonObjectGrammar() {
  const nlohmann::json none;
  return SchemaCompiler(none).AnyObject();
}

}  // namespace vt::grammar
