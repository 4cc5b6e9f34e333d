// JSON Schema -> grammar against a corpus of cases (tests/engine/grammar/data/json_schema_cases.json,
// in the JSON-Schema-Test-Suite's format): for every schema that compiles, the grammar accepts an
// instance exactly when it is valid, written compactly and with one space after ':' and ',' (the
// whitespace the grammar allows). A case may say `grammar_accepts` where the grammar knowingly
// differs from JSON Schema, with `because`; a group may say `refused`, the compile error a schema
// gets when it uses what the compiler cannot express.
#include "engine/grammar/json_schema_grammar.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "engine/grammar/grammar_matcher.h"
#include "tests/npm_inputs.h"
#include "tests/source_root.h"

namespace vt::grammar {
namespace {

using nlohmann::json;

bool Matches(const std::shared_ptr<const Grammar>& g, const std::string& text) {
  GrammarMatcher m(g);
  return m.Accept(text) && m.CanEnd();
}

// `v` with one space after every ':' and ',' outside strings (dump() writes none).
std::string Spaced(const json& v) {
  if (!v.is_structured() || v.empty()) return v.dump();
  std::string out(1, v.is_object() ? '{' : '[');
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (it != v.begin()) out += ", ";
    if (v.is_object()) out += json(it.key()).dump() + ": ";
    out += Spaced(*it);
  }
  return out + (v.is_object() ? '}' : ']');
}

json Corpus() {
  std::ifstream in(vt::testing::SourceRoot() / "tests/engine/grammar/data/json_schema_cases.json");
  EXPECT_TRUE(in.good());
  return json::parse(in, nullptr, false);
}

void CollectKeys(const json& v, std::set<std::string>* keys) {
  if (v.is_object()) {
    for (const auto& [key, value] : v.items()) {
      keys->insert(key);
      CollectKeys(value, keys);
    }
  } else if (v.is_array()) {
    for (const json& e : v) CollectKeys(e, keys);
  }
}

TEST(JsonSchemaCorpus, TheGrammarAcceptsExactlyTheValidInstances) {
  const json corpus = Corpus();
  ASSERT_TRUE(corpus.is_array());
  int checked = 0, diverging = 0, refused = 0;
  for (const json& group : corpus) {
    const std::string where = group.at("description").get<std::string>();
    Result<Grammar> g = CompileJsonSchema(group.at("schema"));
    if (group.contains("refused")) {
      ++refused;
      ASSERT_FALSE(g.ok()) << where << ": compiled although the corpus says it is refused";
      EXPECT_NE(g.status().message().find(group["refused"].get<std::string>()), std::string::npos)
          << where << ": " << g.status().message();
      continue;
    }
    ASSERT_TRUE(g.ok()) << where << ": " << g.status().message();
    const auto grammar = std::make_shared<const Grammar>(std::move(*g));
    for (const json& test : group.at("tests")) {
      const std::string what = where + " / " + test.at("description").get<std::string>();
      bool expected = test.at("valid").get<bool>();
      if (test.contains("grammar_accepts")) {
        ++diverging;
        EXPECT_NE(test["grammar_accepts"].get<bool>(), expected) << what << ": marked as a divergence but agrees";
        EXPECT_FALSE(test.value("because", std::string()).empty()) << what << ": a divergence must say why";
        expected = test["grammar_accepts"].get<bool>();
      }
      for (const std::string& text : {test.at("data").dump(), Spaced(test.at("data"))}) {
        EXPECT_EQ(Matches(grammar, text), expected) << what << ": " << text;
      }
      ++checked;
    }
  }
  EXPECT_GE(checked, 150);
  EXPECT_GE(refused, 20);
  EXPECT_LE(diverging, 12) << "the corpus is about agreement; each divergence is a documented exception";
}

// Every keyword the compiler supports appears in the corpus, so none goes untested.
TEST(JsonSchemaCorpus, CoversEverySupportedKeyword) {
  std::set<std::string> used;
  for (const json& group : Corpus()) {
    if (!group.contains("refused")) CollectKeys(group.at("schema"), &used);
  }
  for (const char* keyword : {"type", "properties", "required", "additionalProperties", "items", "minItems", "maxItems",
                              "enum", "const", "anyOf", "oneOf", "$ref", "$defs", "definitions", "minLength",
                              "maxLength", "pattern", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "title", "description", "default", "examples", "$schema", "$id",
                              "$comment"}) {
    EXPECT_EQ(used.count(keyword), 1u) << keyword;
  }
}

// Integer bounds against arithmetic: for ranges crossing zero, negative only, one value, near the
// 16-digit bound and open on one side, every integer tried is accepted exactly when it lies inside,
// and nothing but JSON's own spelling is (no leading zero, no "-0", no fraction).
TEST(JsonSchemaGrammar, IntegerBoundsAcceptExactlyTheIntegersInside) {
  constexpr int64_t kCap = 9999999999999999;
  std::mt19937_64 rng(7);
  std::vector<std::pair<int64_t, int64_t>> ranges = {
      {0, 150}, {-20, -3}, {-1000, 1000}, {7, 7}, {-9, 9}, {10, 99}, {99, 101}, {1, 1000000},
      {123456, 987654321}, {-kCap, kCap}, {kCap - 1000, kCap}, {-kCap, -kCap + 5}, {0, 0}, {-1, 0}};
  for (int i = 0; i < 40; ++i) {
    const int digits_a = int(rng() % 16) + 1, digits_b = int(rng() % 16) + 1;
    auto random_of = [&](int digits) {
      int64_t v = 0;
      for (int d = 0; d < digits; ++d) v = v * 10 + int64_t(rng() % 10);
      return rng() % 3 == 0 ? -v : v;
    };
    int64_t a = random_of(digits_a), b = random_of(digits_b);
    if (a > b) std::swap(a, b);
    ranges.push_back({a, b});
  }
  for (const auto& [lo, hi] : ranges) {
    for (const json& schema : {json{{"type", "integer"}, {"minimum", lo}, {"maximum", hi}},
                               json{{"type", "integer"}, {"exclusiveMinimum", lo - 1}, {"exclusiveMaximum", hi + 1}}}) {
      Result<Grammar> compiled = CompileJsonSchema(schema);
      ASSERT_TRUE(compiled.ok()) << schema.dump() << ": " << compiled.status().message();
      const auto g = std::make_shared<const Grammar>(std::move(*compiled));
      std::vector<int64_t> probes = {lo, hi, lo - 1, hi + 1, 0, 1, -1, 10, -10, kCap, -kCap};
      for (int k = 0; k < 60; ++k) {
        const uint64_t span = uint64_t(hi - lo) + 1;
        probes.push_back(lo + int64_t(span == 0 ? rng() : rng() % span));
        probes.push_back(int64_t(rng() % 2000000) - 1000000);
      }
      for (int64_t p = 1; p <= kCap / 10; p *= 10) {
        probes.push_back(lo + p);
        probes.push_back(hi - p);
      }
      for (int64_t v : probes) {
        if (v < -kCap || v > kCap) continue;
        EXPECT_EQ(Matches(g, std::to_string(v)), v >= lo && v <= hi) << schema.dump() << " value " << v;
      }
      EXPECT_FALSE(Matches(g, "-0")) << schema.dump();
      EXPECT_FALSE(Matches(g, "0" + std::to_string(std::max<int64_t>(lo, 1)))) << schema.dump();
      EXPECT_FALSE(Matches(g, std::to_string(lo) + ".0")) << schema.dump();
    }
  }
}

// Fractional bounds round inward, draft 4's boolean exclusive forms apply, an empty range and
// bounds on a number are refused by name.
TEST(JsonSchemaGrammar, IntegerBoundsFormsAndRefusals) {
  auto accepts = [](const char* schema, const char* text) {
    Result<Grammar> g = CompileJsonSchema(json::parse(schema));
    EXPECT_TRUE(g.ok()) << schema << ": " << g.status().message();
    return g.ok() && Matches(std::make_shared<const Grammar>(std::move(*g)), text);
  };
  EXPECT_TRUE(accepts(R"({"type": "integer", "minimum": 1.5, "maximum": 3.5})", "2"));
  EXPECT_TRUE(accepts(R"({"type": "integer", "minimum": 1.5, "maximum": 3.5})", "3"));
  EXPECT_FALSE(accepts(R"({"type": "integer", "minimum": 1.5, "maximum": 3.5})", "1"));
  EXPECT_FALSE(accepts(R"({"type": "integer", "minimum": 1.5, "maximum": 3.5})", "4"));
  EXPECT_FALSE(accepts(R"({"type": "integer", "minimum": 5, "exclusiveMinimum": true})", "5"));
  EXPECT_TRUE(accepts(R"({"type": "integer", "minimum": 5, "exclusiveMinimum": true})", "6"));
  EXPECT_TRUE(accepts(R"({"type": "integer", "maximum": 5, "exclusiveMaximum": false})", "5"));
  EXPECT_TRUE(accepts(R"({"type": ["integer", "string"], "minimum": 3})", R"("two")"));
  for (const auto& [schema, message] : std::vector<std::pair<const char*, const char*>>{
           {R"({"type": "integer", "minimum": 5, "maximum": 4})", "no integer"},
           {R"({"type": "integer", "exclusiveMinimum": 4, "exclusiveMaximum": 5})", "no integer"},
           {R"({"type": "integer", "minimum": "3"})", "'minimum' must be a number"},
           {R"({"type": "integer", "exclusiveMinimum": true})", "'exclusiveMinimum' must be a number"},
           {R"({"type": "number", "maximum": 3})", "bounds integers only"},
           {R"({"minimum": 1.1})", "bounds integers only"}}) {
    Result<Grammar> g = CompileJsonSchema(json::parse(schema));
    ASSERT_FALSE(g.ok()) << schema;
    EXPECT_NE(g.status().message().find(message), std::string::npos) << schema << ": " << g.status().message();
  }
}

// The official JSON-Schema-Test-Suite's draft-4 cases (read from the npm package that
// ci/fetch-json-schema-test-suite.sh caches, never copied here), every file but the remote
// references: each group either compiles and its grammar agrees with every test, written compactly and
// spaced, or is refused, or differs as tests/engine/grammar/data/json_schema_suite_expectations.json
// says and why (a listed difference that stops differing fails too, so the list stays exact).
std::filesystem::path SuiteCache() { return vt::testing::NpmCache("VT_NODE_CACHE", "node") / "json-schema-test-suite"; }

TEST(JsonSchemaTestSuite, TheGrammarAgreesWithTheOfficialDraft4Cases) {
  const std::filesystem::path dir = SuiteCache() / "node_modules/json-schema-test-suite/tests/draft4";
  // Fetched by ci/fetch-json-schema-test-suite.sh, which ctest runs first (fixtures.npm_fetch).
  if (!std::filesystem::exists(dir / "type.json")) {
    GTEST_SKIP() << vt::testing::MissingInput(dir / "type.json", SuiteCache(), "ci/fetch-json-schema-test-suite.sh");
  }
  std::ifstream expectations_in(vt::testing::SourceRoot() / "tests/engine/grammar/data/json_schema_suite_expectations.json");
  const json expectations = json::parse(expectations_in, nullptr, false);
  ASSERT_TRUE(expectations.is_object());
  const json& refused = expectations.at("refused");     // "file / group" -> compile error fragment
  const json& differs = expectations.at("differs");     // "file / group / test" -> {grammar_accepts, because}
  std::set<std::string> seen;
  int agreeing = 0, differing = 0, refusals = 0;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".json" && entry.path().stem() != "refRemote") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const std::filesystem::path& file : files) {
    std::ifstream in(file);
    const json groups = json::parse(in, nullptr, false);
    ASSERT_TRUE(groups.is_array()) << file;
    for (const json& group : groups) {
      const std::string where = file.stem().string() + " / " + group.at("description").get<std::string>();
      Result<Grammar> g = CompileJsonSchema(group.at("schema"));
      if (refused.contains(where)) {
        seen.insert(where);
        ++refusals;
        EXPECT_FALSE(g.ok()) << where << ": compiles, but the expectations say it is refused";
        if (!g.ok()) {
          EXPECT_NE(g.status().message().find(refused[where].get<std::string>()), std::string::npos)
              << where << ": " << g.status().message();
        }
        continue;
      }
      if (!g.ok()) {
        ADD_FAILURE() << where << ": refused (" << g.status().message() << ") and not listed as refused";
        continue;
      }
      const auto grammar = std::make_shared<const Grammar>(std::move(*g));
      for (const json& test : group.at("tests")) {
        const std::string what = where + " / " + test.at("description").get<std::string>();
        bool expected = test.at("valid").get<bool>();
        if (differs.contains(what)) {
          seen.insert(what);
          ++differing;
          const json& d = differs[what];
          EXPECT_NE(d.at("grammar_accepts").get<bool>(), expected) << what << ": listed as a difference but agrees";
          EXPECT_FALSE(d.value("because", std::string()).empty()) << what << ": a difference must say why";
          expected = d.at("grammar_accepts").get<bool>();
        } else {
          ++agreeing;
        }
        for (const std::string& text : {test.at("data").dump(), Spaced(test.at("data"))}) {
          EXPECT_EQ(Matches(grammar, text), expected) << what << ": " << text;
        }
      }
    }
  }
  for (const auto& [key, value] : refused.items()) EXPECT_EQ(seen.count(key), 1u) << key << ": not in the suite";
  for (const auto& [key, value] : differs.items()) EXPECT_EQ(seen.count(key), 1u) << key << ": not in the suite";
  std::printf("JSON-Schema-Test-Suite draft 4: %d tests agree, %d differ as listed, %d groups refused\n", agreeing,
              differing, refusals);
}

}  // namespace
}  // namespace vt::grammar
