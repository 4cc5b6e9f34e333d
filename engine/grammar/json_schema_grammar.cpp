#include "engine/grammar/json_schema_grammar.h"

#include <map>
#include <set>
#include <string>

#include "engine/grammar/json_string_pattern.h"

namespace vt::grammar {

namespace {

using nlohmann::json;

// Repetition bounds beyond this would only grow the grammar; nobody constrains an output so.
constexpr int64_t kMaxBound = 1000;
constexpr int kMaxDigits = 16;  // integer and fraction digits: a bound, so a model cannot loop on them

const std::set<std::string> kAnnotations = {"title", "description", "default", "examples", "$schema",
                                            "$id", "$comment", "$defs", "definitions"};
const std::set<std::string> kSupported = {"type", "properties", "required", "additionalProperties", "items",
                                          "minItems", "maxItems", "enum", "const", "anyOf", "oneOf",
                                          "$ref", "minLength", "maxLength", "pattern"};

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
  int32_t Cached(const std::string& name, int32_t (SchemaCompiler::*make)()) {
    auto it = shared_.find(name);
    if (it != shared_.end()) return it->second;
    const int32_t id = (this->*make)();
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
    shared_["object"] = object;
    const int32_t member = NewRule("member", {{Ref(AnyString()), Char(':'), Ref(Ws()), Ref(AnyValue())}});
    const int32_t more = AddRule(g_, "members");
    g_.rules[size_t(more)].alternatives = {{Char(','), Ref(Ws()), Ref(member), Ref(more)}, {}};
    g_.rules[size_t(object)].alternatives = {{Char('{'), Char('}')}, {Char('{'), Ref(member), Ref(more), Char('}')}};
    return object;
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
    if (s.contains("$ref")) {
      if (!s["$ref"].is_string()) return Unsupported("'$ref' must be a string", path);
      return Ref(s["$ref"].get<std::string>(), path);
    }
    if (s.contains("const")) return NewRule(path, {Literal(s["const"].dump())});
    if (s.contains("enum")) {
      if (!s["enum"].is_array() || s["enum"].empty()) return Unsupported("'enum' must be a non-empty array", path);
      std::vector<Sequence> alternatives;
      for (const json& v : s["enum"]) alternatives.push_back(Literal(v.dump()));
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
    std::vector<std::string> types;
    if (s.contains("type")) {
      const json& t = s["type"];
      if (t.is_string()) {
        types.push_back(t.get<std::string>());
      } else if (t.is_array() && !t.empty()) {
        for (const json& e : t) {
          if (!e.is_string()) return Unsupported("'type' must be a string or a list of strings", path);
          types.push_back(e.get<std::string>());
        }
      } else {
        return Unsupported("'type' must be a string or a list of strings", path);
      }
    } else if (s.contains("properties")) {
      types.push_back("object");
    } else if (s.contains("items")) {
      types.push_back("array");
    } else if (s.contains("pattern")) {
      types.push_back("string");  // any other value would pass `pattern`; a string is what is meant
    } else {
      return AnyValue();
    }
    std::vector<Sequence> alternatives;
    for (const std::string& type : types) {
      Result<int32_t> r = Typed(type, s, path);
      if (!r.ok()) return r.status();
      alternatives.push_back({Ref(*r)});
    }
    return NewRule(path, std::move(alternatives));
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
    if (type == "integer") return Integer();
    if (type == "number") return Number();
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
    if (type == "object") return Object(s, path);
    return Unsupported("unknown type '" + type + "'", path);
  }

  Result<int32_t> Object(const json& s, const std::string& path) {
    if (!s.contains("properties")) {
      const bool closed = s.contains("additionalProperties") && s["additionalProperties"] == false;
      return closed ? NewRule(path, {{Char('{'), Char('}')}}) : ObjectAny();
    }
    const json& props = s["properties"];
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
