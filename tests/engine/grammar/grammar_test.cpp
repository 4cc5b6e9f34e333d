// The grammar engine: JSON Schema compiled to a grammar, strings accepted or rejected as the schema
// says, the token mask equal to trying every token on its own, and constrained decoding through
// the engine producing JSON that parses and validates.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "engine/grammar/grammar_constraint.h"
#include "engine/grammar/grammar_matcher.h"
#include "engine/grammar/inline_rules.h"
#include "engine/grammar/json_schema_grammar.h"
#include "engine/tokenizer/tokenizer.h"
#include "tests/engine/grammar/sentence_match.h"
#include "tests/engine/tiny_model.h"
#include "tests/source_root.h"

namespace vt::grammar {
namespace {

using nlohmann::json;

std::shared_ptr<const Grammar> Compile(const json& schema) { return Shared(CompileJsonSchema(schema), schema.dump()); }

const json kPerson = json::parse(R"({
  "type": "object",
  "properties": {
    "name": {"type": "string", "maxLength": 5},
    "age": {"type": "integer"},
    "tags": {"type": "array", "items": {"enum": ["a", "b"]}, "maxItems": 2},
    "score": {"type": ["number", "null"]}
  },
  "required": ["name", "age"]
})");

TEST(JsonSchemaGrammar, AcceptsWhatTheSchemaAdmits) {
  const auto g = Compile(kPerson);
  for (const char* ok : {R"({"age":3,"name":"bob"})", R"({"age": -12,"name": "x","tags": ["a","b"]})",
                         R"({"age":0,"name":"","score":null})", R"({"age":7,"name":"\u00e9t\n","score":-1.5e3})",
                         "{\"age\":1,\"name\":\"\xc3\xa9t\xc3\xa9\"}"}) {
    EXPECT_TRUE(Matches(g, ok)) << ok;
  }
}

TEST(JsonSchemaGrammar, RejectsWhatTheSchemaDoesNot) {
  const auto g = Compile(kPerson);
  for (const char* bad : {R"({"age":3})", R"({"age":3.5,"name":"b"})", R"({"age":3,"name":"toolong"})",
                          R"({"age":3,"name":"b","tags":["a","b","a"]})", R"({"age":3,"name":"b","tags":["c"]})",
                          R"({"age":03,"name":"b"})", R"({"age":3,"name":"b","other":1})", R"({"age":3,"name":"b"} )",
                          "{\"age\":1,\"name\":\"\xff\"}", "{\"age\":1,\"name\":\"a\t\"}"}) {
    EXPECT_FALSE(Matches(g, bad)) << bad;
  }
}

// A UTF-8 lead byte is accepted only where a character of its length may follow: not in place of
// an ASCII letter, whatever its bits say.
TEST(JsonSchemaGrammar, LeadBytesOnlyWhereTheirCharactersFit) {
  const auto g = Compile(json::parse("{\"enum\": [\"ag\", \"\xc3\xa9\", \"\xf0\x9f\x98\x80\"]}"));
  for (const char* bad : {"\"a\xf0", "\"a\xe0", "\"a\xc3", "\"\xf0\x9f\x98\x81"}) {
    GrammarMatcher m(g);
    EXPECT_FALSE(m.Accept(bad)) << bad;
  }
  EXPECT_TRUE(Matches(g, "\"\xc3\xa9\""));
  EXPECT_TRUE(Matches(g, "\"\xf0\x9f\x98\x80\""));
  EXPECT_TRUE(Matches(g, "\"ag\""));
}

TEST(JsonSchemaGrammar, RefsMayRecurse) {
  const auto g = Compile(json::parse(R"({
    "$defs": {"node": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}},
    "$ref": "#/$defs/node"})"));
  EXPECT_TRUE(Matches(g, R"({"kids":[{"kids":[]},{}]})"));
  EXPECT_FALSE(Matches(g, R"({"kids":[{"kids":[1]}]})"));
}

// A schema that refers back to itself before any character (left recursion through anyOf) would
// branch without end; the matcher gives up on it at once instead of hanging the engine.
TEST(JsonSchemaGrammar, LeftRecursionThroughRefsEndsPromptly) {
  const auto g = Compile(json::parse(R"({
    "$defs": {"a": {"anyOf": [{"$ref": "#/$defs/a"}, {"$ref": "#/$defs/a"}, {"type": "null"}]}},
    "$ref": "#/$defs/a"})"));
  const auto start = std::chrono::steady_clock::now();
  GrammarMatcher m(g);
  m.Accept("nu");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST(JsonSchemaGrammar, WhatItCannotEnforceIsAnErrorNamingIt) {
  for (const char* schema : {R"j({"type":"string","pattern":"a(?=b)"})j", R"({"type":"number","minimum":3})",
                             R"({"$ref":"#/$defs/missing"})", R"({"type":"widget"})", "false"}) {
    Result<Grammar> g = CompileJsonSchema(json::parse(schema));
    EXPECT_FALSE(g.ok()) << schema;
  }
  Result<Grammar> g = CompileJsonSchema(json::parse(R"({"type":"string","format":"email"})"));
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("'format'"), std::string::npos) << g.status().message();
}

TEST(JsonSchemaGrammar, JsonObjectAcceptsAnyObject) {
  const auto g = std::make_shared<const Grammar>(JsonObjectGrammar());
  EXPECT_TRUE(Matches(g, R"({"a":[1,{"b":null}],"c":"d"})"));
  EXPECT_TRUE(Matches(g, "{}"));
  EXPECT_FALSE(Matches(g, "[]"));
  EXPECT_FALSE(Matches(g, R"({"a":})"));
}

// Tokens that cross rule boundaries in every way JSON allows: closing a string and opening the next
// key, a number running into a comma, literals split anywhere, multi-byte characters split over
// tokens, escapes, and whole members.
std::vector<std::string> AwkwardTokens() {
  std::vector<std::string> tokens = {"",       "{",      "}",      "\"",      "a",      "\"a",   "ag",     "e\"",
                                     "age",    "\"age\":", ":",     ",",       " ",      "1",     "12",     "-",
                                     "0",      ".5",     "n",      "name",    "\"name\":\"", "\xc3", "\xa9", "\xc3\xa9",
                                     "\xf0",   "\x9f\x98\x80", "[", "]",       "\"a\"",  "null",  "\\n",    "\\",
                                     "b",      "\",",    "\":",    "\"}",     "},\"",   "\" ",   " \"",    "true",
                                     "tr",     "ue,",    "1.",     ".5e",     "-0",     "]}",    "[{",     "{\"",
                                     "\\u00",  "e9",     "\\\"",   "abc\"",   "a\":",   "\"a\":\"b\"", "\": ", ", \"",
                                     "e+3",    "E-",     "0,",     "7]",      "5}",     "null,", "false", "fa",
                                     "lse}",   "\"\"",   "\"}}",   "x",       "é\"",    "1e",    "]]",     "[[",
                                     "\t",     "\n",     "ab",     "a\\",     "\\t\"",  "\"b\":[", "},{",  "\xe2\x82",
                                     "\xac\"", "\xe2\x82\xac"};
  return tokens;
}

// At every step of random walks through `g` over `tokens`, the table's mask and the walk's mask both
// equal trying each token alone.
void ExpectMasksEqualTryingEveryTokenAlone(const std::shared_ptr<const Grammar>& g, const std::vector<std::string>& tokens,
                                           int walks, int max_steps, int min_steps) {
  const TokenVocabulary vocab(tokens);
  const std::shared_ptr<const TokenMaskTable> table = TokenMaskTable::Build(g, vocab).value();
  std::mt19937 rng(5);
  int steps = 0;
  for (int walk = 0; walk < walks; ++walk) {
    GrammarMatcher m(g);
    for (int step = 0; step < max_steps; ++step, ++steps) {
      TokenBitmask walked, tabled;
      m.AllowedTokens(vocab, &walked);
      m.AllowedTokens(vocab, &tabled, table.get());
      std::vector<int32_t> choices;
      for (size_t id = 0; id < tokens.size(); ++id) {
        GrammarMatcher alone = m;
        const bool ok = !tokens[id].empty() && alone.Accept(tokens[id]);
        ASSERT_EQ(walked.Test(int64_t(id)), ok) << "walk " << walk << ", step " << step << ", token '" << tokens[id] << "'";
        ASSERT_EQ(tabled.Test(int64_t(id)), ok)
            << "table, walk " << walk << ", step " << step << ", token '" << tokens[id] << "'";
        if (ok) choices.push_back(int32_t(id));
      }
      if (choices.empty()) break;
      ASSERT_TRUE(m.Accept(tokens[size_t(choices[rng() % choices.size()])]));
    }
  }
  EXPECT_GT(steps, min_steps);
}

TEST(GrammarMatcher, MaskEqualsTryingEveryTokenAlone) {
  ExpectMasksEqualTryingEveryTokenAlone(Compile(kPerson), AwkwardTokens(), 40, 30, 200);
}

TEST(GrammarMatcher, AnyValueMaskEqualsTryingEveryTokenAlone) {
  ExpectMasksEqualTryingEveryTokenAlone(std::make_shared<const Grammar>(JsonObjectGrammar()), AwkwardTokens(), 40, 40,
                                        300);
}

TEST(GrammarMatcher, RecursiveSchemaMaskEqualsTryingEveryTokenAlone) {
  const auto g = Compile(json::parse(R"({
    "$defs": {"node": {"type": "object", "properties": {
      "v": {"anyOf": [{"type": "integer"}, {"type": "string", "maxLength": 3}, {"type": "null"}]},
      "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}, "maxItems": 2}}}},
    "$ref": "#/$defs/node"})"));
  ExpectMasksEqualTryingEveryTokenAlone(g, AwkwardTokens(), 80, 40, 50);
}

// Inside a long string the state repeats (a reference that ends its rule replaces the caller's
// frame), so the stacks stay as deep as the nesting, not as long as the text.
TEST(GrammarMatcher, LongStringsKeepTheStackShallow) {
  const auto g = std::make_shared<const Grammar>(JsonObjectGrammar());
  GrammarMatcher m(g);
  ASSERT_TRUE(m.Accept("{\"k\":\""));
  const int64_t before = m.live_stacks();
  for (int i = 0; i < 2000; ++i) ASSERT_TRUE(m.Accept("ab"));
  EXPECT_EQ(m.live_stacks(), before);
  ASSERT_TRUE(m.Accept("\"}"));
  EXPECT_TRUE(m.CanEnd());
}

// The table decides most tokens once: for a string's characters every ordinary token is accepted
// outright and only those that close the string are left to run time.
TEST(TokenMaskTable, LeavesOnlyBoundaryCrossingTokensUncertain) {
  const auto g = std::make_shared<const Grammar>(JsonObjectGrammar());
  const std::vector<std::string> tokens = AwkwardTokens();
  const TokenVocabulary vocab(tokens);
  const std::shared_ptr<const TokenMaskTable> table = TokenMaskTable::Build(g, vocab).value();
  GrammarMatcher m(g);
  ASSERT_TRUE(m.Accept("{\"k\":\"x"));
  TokenBitmask allowed;
  m.AllowedTokens(vocab, &allowed, table.get());
  EXPECT_GT(table->positions(), 10);
  EXPECT_LT(table->uncertain_tokens(), table->positions() * int64_t(tokens.size()) / 4);
  for (const char* inside : {"a", "ag", "name", "\\n", "\xc3\xa9", " "}) {
    const auto id = std::find(tokens.begin(), tokens.end(), std::string(inside)) - tokens.begin();
    EXPECT_TRUE(allowed.Test(id)) << inside;
  }
  for (const char* closing : {"\",", "\"}", "\"", "e\""}) {
    const auto id = std::find(tokens.begin(), tokens.end(), std::string(closing)) - tokens.begin();
    EXPECT_TRUE(allowed.Test(id)) << closing;
  }
  for (const char* wrong : {"\":", "\"a", "\"\"", "\t"}) {
    const auto id = std::find(tokens.begin(), tokens.end(), std::string(wrong)) - tokens.begin();
    EXPECT_FALSE(allowed.Test(id)) << wrong;
  }
}

// The flat trie: each node's tokens are spelled by the bytes on its path, every token with bytes
// sits at exactly one node, and subtree_end(i) is where node i's descendants stop (the next node
// no deeper than i), so a walk that skips a refused subtree skips exactly it.
TEST(TokenVocabulary, PreorderNodesSpellTheirTokensAndSubtreesAreContiguous) {
  const std::vector<std::string> tokens = AwkwardTokens();
  const TokenVocabulary vocab(tokens);
  ASSERT_GT(vocab.nodes(), 1);
  EXPECT_EQ(vocab.depth(0), 0);
  EXPECT_EQ(vocab.subtree_end(0), vocab.nodes());
  std::vector<std::string> path(size_t(vocab.max_depth()) + 1);
  std::vector<int> seen(tokens.size(), 0);
  for (int32_t i = 1; i < vocab.nodes(); ++i) {
    const int32_t d = vocab.depth(i);
    ASSERT_GE(d, 1);
    ASSERT_LE(d, vocab.depth(i - 1) + 1) << "node " << i << " skips a level";
    path[size_t(d)] = path[size_t(d) - 1] + char(vocab.byte(i));
    for (int32_t id : vocab.tokens_at(i)) {
      EXPECT_EQ(tokens[size_t(id)], path[size_t(d)]) << "token " << id << " at node " << i;
      ++seen[size_t(id)];
    }
    const int32_t end = vocab.subtree_end(i);
    ASSERT_GT(end, i);
    for (int32_t j = i + 1; j < end; ++j) {
      ASSERT_GT(vocab.depth(j), d) << "node " << j << " inside " << i;
    }
    if (end < vocab.nodes()) {
      EXPECT_LE(vocab.depth(end), d) << "subtree of " << i << " stops early";
    }
  }
  for (size_t id = 0; id < tokens.size(); ++id) EXPECT_EQ(seen[id], tokens[id].empty() ? 0 : 1) << "token " << id;
}

// A schema whose table would take too long to build (long bounded strings: each character position
// walks the vocabulary) is refused with an error naming the bound, not built for minutes.
TEST(TokenMaskTable, AGrammarOverItsWalkBudgetIsAnErrorNamingIt) {
  const auto g = std::make_shared<const Grammar>(InlineCharacterRules(*Compile(json::parse(R"({"type": "object",
    "properties": {"a": {"type": "string", "maxLength": 1000}, "b": {"type": "string", "maxLength": 1000}}})"))));
  const TokenVocabulary vocab(AwkwardTokens());
  Result<std::shared_ptr<const TokenMaskTable>> small = TokenMaskTable::Build(g, vocab, 10000);
  ASSERT_FALSE(small.ok());
  EXPECT_NE(small.status().message().find("more than 10000 vocabulary trie nodes"), std::string::npos)
      << small.status().message();
  EXPECT_TRUE(TokenMaskTable::Build(g, vocab).ok());
}

// On a real byte-level BPE vocabulary (the embedded model's 4,096 tokens: word pieces, quotes
// glued to punctuation, split UTF-8), the table's masks equal whole-vocabulary walks at every step of
// random documents, for the any-value grammar and a nested schema with bounded strings and arrays.
TEST(TokenMaskTable, AgreesWithVocabularyWalksOnARealTokenizer) {
  Result<std::shared_ptr<Tokenizer>> tokenizer =
      Tokenizer::FromFile((vt::testing::SourceRoot() / "assets/models/fortune-qwen3-7m/tokenizer.json").string());
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status().message();
  const auto vocab = std::make_shared<const TokenVocabulary>((*tokenizer)->TokenBytesTable());
  const json nested = json::parse(R"({"type": "object", "properties": {
    "name": {"type": "string", "maxLength": 6},
    "inner": {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
                                               "n": {"type": "number"}}, "required": ["tags"]}},
    "required": ["name", "inner"]})");
  for (Grammar source : {JsonObjectGrammar(), *Compile(nested)}) {
    const std::shared_ptr<const GrammarConstraint> c = Constrain(std::move(source), vocab).value();
    std::mt19937 rng(11);
    int steps = 0, documents = 0;
    while (steps < 150) {
      GrammarMatcher m(c->grammar);
      for (int step = 0; step < 60 && steps < 150; ++step, ++steps) {
        TokenBitmask walked, tabled;
        m.AllowedTokens(*vocab, &walked);
        m.AllowedTokens(*vocab, &tabled, c->masks.get());
        ASSERT_EQ(walked.words(), tabled.words()) << "document " << documents << ", step " << step;
        std::vector<int32_t> choices;
        for (int64_t id = 0; id < walked.size(); ++id) {
          if (walked.Test(id)) choices.push_back(int32_t(id));
        }
        if (choices.empty() || m.Finished()) break;
        ASSERT_TRUE(m.Accept(vocab->bytes(choices[rng() % choices.size()])));
      }
      ++documents;
    }
  }
}

// Through the engine on a tiny model whose token i is byte i (token 0 is EOS): greedy and sampled
// requests both come out as JSON that parses and meets the schema, and end with EOS.
TEST(GrammarEngine, ConstrainedRequestsProduceValidJson) {
  ModelConfig c = testing::TinyConfig();
  c.eos_token_ids = {0};
  auto engine = testing::MakeEngine(c);
  std::vector<std::string> bytes(256);
  for (int i = 1; i < 256; ++i) bytes[size_t(i)] = std::string(1, char(i));
  const std::shared_ptr<const GrammarConstraint> constraint =
      Constrain(*Compile(kPerson), std::make_shared<const TokenVocabulary>(bytes)).value();
  for (float temperature : {0.0f, 1.0f}) {
    for (int seed = 0; seed < 4; ++seed) {
      SamplingParams p;
      p.temperature = temperature;
      p.seed = uint64_t(seed);
      p.max_tokens = 400;
      p.grammar = constraint;
      const std::vector<int32_t> out = testing::Generate(*engine, {testing::Prompt(6, seed)}, p)[0];
      ASSERT_FALSE(out.empty());
      EXPECT_EQ(out.back(), 0) << "ended without EOS";
      std::string text;
      for (size_t i = 0; i + 1 < out.size(); ++i) text += bytes[size_t(out[i])];
      const json j = json::parse(text, nullptr, false);
      ASSERT_FALSE(j.is_discarded()) << text;
      ASSERT_TRUE(j.contains("name") && j["name"].is_string()) << text;
      const std::string name = j["name"].get<std::string>();  // maxLength counts characters, not bytes
      EXPECT_LE(std::count_if(name.begin(), name.end(), [](char ch) { return (uint8_t(ch) & 0xC0) != 0x80; }), 5)
          << text;
      EXPECT_TRUE(j.contains("age") && j["age"].is_number_integer()) << text;
    }
  }
}

// Three dozen constrained requests in the same steps (greedy, sampled, penalised, some whose vocabulary
// cannot spell its grammar) each come out exactly as they do alone: a row's mask and adjustment are
// its own.
TEST(GrammarEngine, ManyConstrainedRowsInOneStepGiveWhatEachGivesAlone) {
  ModelConfig c = testing::TinyConfig();
  c.eos_token_ids = {0};
  std::vector<std::string> bytes(256);
  for (int i = 1; i < 256; ++i) bytes[size_t(i)] = std::string(1, char(i));
  const std::shared_ptr<const GrammarConstraint> person =
      Constrain(*Compile(kPerson), std::make_shared<const TokenVocabulary>(bytes)).value();
  auto unspellable = std::make_shared<GrammarConstraint>();
  unspellable->grammar = Compile(kPerson);
  unspellable->vocabulary = std::make_shared<const TokenVocabulary>(std::vector<std::string>(256, "x"));
  std::vector<SamplingParams> params;
  // Enough rows that a step prepares them on several threads (LlmEngine::PrepareRows), with failing
  // rows among them.
  constexpr int kRequests = 36;
  for (int i = 0; i < kRequests; ++i) {
    SamplingParams p;
    p.temperature = i % 2 == 0 ? 0.0f : 1.0f;
    p.seed = uint64_t(i);
    p.max_tokens = 200;
    p.grammar = i % 12 == 5 ? unspellable : person;
    if (i % 3 == 0) p.frequency_penalty = 0.5f;  // an adjustment planned beside the mask
    params.push_back(p);
  }
  auto run = [&](const std::vector<int>& which) {
    EngineConfig ec;
    ec.num_kv_blocks = 1024;  // every request resident at once
    auto engine = testing::MakeEngine(c, ec);
    std::vector<RequestId> ids;
    for (int i : which) ids.push_back(engine->AddRequest(testing::Prompt(6, i), params[size_t(i)]).value());
    while (engine->HasUnfinished()) EXPECT_TRUE(engine->Step().ok());
    std::vector<std::pair<std::vector<int32_t>, FinishReason>> out;
    for (RequestId id : ids) {
      const std::unique_ptr<Request> r = engine->TakeFinished(id);
      out.emplace_back(r->output, r->finish);
    }
    return out;
  };
  std::vector<int> all(kRequests);
  for (int i = 0; i < kRequests; ++i) all[size_t(i)] = i;
  const auto together = run(all);
  for (int i = 0; i < kRequests; ++i) {
    const auto alone = run({i});
    EXPECT_EQ(together[size_t(i)].first, alone[0].first) << "request " << i;
    EXPECT_EQ(together[size_t(i)].second, alone[0].second) << "request " << i;
  }
  for (int i = 5; i < kRequests; i += 12) EXPECT_EQ(together[size_t(i)].second, FinishReason::kAborted);
  EXPECT_EQ(together[0].first.back(), 0) << "ended without EOS";
}

// A vocabulary that cannot spell what the grammar needs next ends that request (aborted) and only
// that one: its neighbour in the same steps finishes as it would alone.
TEST(GrammarEngine, AGrammarThatCannotGoOnEndsOnlyItsOwnRequest) {
  ModelConfig c = testing::TinyConfig();
  c.eos_token_ids = {0};
  auto engine = testing::MakeEngine(c);
  auto constraint = std::make_shared<GrammarConstraint>();
  constraint->grammar = Compile(kPerson);
  constraint->vocabulary = std::make_shared<const TokenVocabulary>(std::vector<std::string>(256, "x"));
  SamplingParams plain;
  plain.temperature = 0.0f;
  plain.ignore_eos = true;
  plain.max_tokens = 5;
  SamplingParams constrained;
  constrained.grammar = constraint;
  const std::vector<int32_t> prompt = testing::Prompt(8, 2);
  const RequestId a = engine->AddRequest(prompt, plain).value();
  const RequestId b = engine->AddRequest(prompt, constrained).value();
  while (engine->HasUnfinished()) ASSERT_TRUE(engine->Step().ok());
  EXPECT_EQ(engine->TakeFinished(a)->output.size(), 5u);
  const std::unique_ptr<Request> failed = engine->TakeFinished(b);
  ASSERT_NE(failed, nullptr);
  EXPECT_EQ(failed->finish, FinishReason::kAborted);
  EXPECT_TRUE(failed->output.empty());
}

TEST(GrammarEngine, RequestsTheGrammarCannotEndAreRefused) {
  ModelConfig c = testing::TinyConfig();
  auto no_eos = testing::MakeEngine(c);
  auto constraint = std::make_shared<GrammarConstraint>();
  constraint->grammar = Compile(kPerson);
  constraint->vocabulary = std::make_shared<const TokenVocabulary>(std::vector<std::string>(256, "x"));
  SamplingParams p;
  p.grammar = constraint;
  EXPECT_FALSE(no_eos->AddRequest({1, 2}, p).ok());
  c.eos_token_ids = {0};
  auto engine = testing::MakeEngine(c);
  p.ignore_eos = true;
  EXPECT_FALSE(engine->AddRequest({1, 2}, p).ok());
}

// `pattern`: unanchored as JSON Schema has it (a match anywhere), anchors where the pattern says,
// and the characters JSON must escape written as their escapes.
TEST(JsonSchemaGrammar, PatternConstrainsTheDecodedString) {
  const auto anchored = Compile(json::parse(R"({"type": "string", "pattern": "^[a-z]{2,4}-\\d+$"})"));
  for (const char* ok : {R"("ab-1")", R"("abcd-0042")"}) EXPECT_TRUE(Matches(anchored, ok)) << ok;
  for (const char* bad : {R"("a-1")", R"("abcde-1")", R"("AB-1")", R"("ab-")", R"(" ab-1")", R"("ab-1x")"}) {
    EXPECT_FALSE(Matches(anchored, bad)) << bad;
  }
  const auto anywhere = Compile(json::parse(R"({"pattern": "cat"})"));  // untyped: a string is meant
  for (const char* ok : {R"("cat")", R"("concatenate")", R"("a\"cat\"")"}) EXPECT_TRUE(Matches(anywhere, ok)) << ok;
  for (const char* bad : {R"("dog")", R"("ca t")", "cat"}) EXPECT_FALSE(Matches(anywhere, bad)) << bad;
}

TEST(JsonSchemaGrammar, PatternCharactersJsonMustEscapeAppearEscaped) {
  const auto quote = Compile(json::parse(R"({"type": "string", "pattern": "^a\"b\\\\c$"})"));  // a"b\c
  EXPECT_TRUE(Matches(quote, R"("a\"b\\c")"));
  EXPECT_FALSE(Matches(quote, R"("a"b\c")"));
  const auto lines = Compile(json::parse(R"({"type": "string", "pattern": "^x\\ny\\tz[\\x00-\\x01]$"})"));
  EXPECT_TRUE(Matches(lines, R"("x\ny\tz\u0000")"));
  EXPECT_TRUE(Matches(lines, R"("x\ny\tz\u0001")"));
  EXPECT_FALSE(Matches(lines, "\"x\ny\tz\\u0000\""));  // raw control characters are not JSON
}

TEST(JsonSchemaGrammar, PatternErrorsNameTheKeyword) {
  auto error = [](const char* schema) {
    Result<Grammar> g = CompileJsonSchema(json::parse(schema));
    return g.ok() ? std::string() : g.status().message();
  };
  EXPECT_NE(error(R"j({"type": "string", "pattern": "a(?=b)"})j").find("'pattern'"), std::string::npos);
  EXPECT_NE(error(R"j({"type": "string", "pattern": "a(?=b)"})j").find("offset 1"), std::string::npos)
      << error(R"j({"type": "string", "pattern": "a(?=b)"})j");
  EXPECT_NE(error(R"({"type": "string", "pattern": 3})").find("'pattern' must be a string"), std::string::npos);
  const std::string none = error(R"({"type": "string", "pattern": "^abc$", "minLength": 1, "maxLength": 2})");
  EXPECT_NE(none.find("'pattern' with 'minLength' with 'maxLength': no string of those lengths"), std::string::npos)
      << none;
}

// `pattern` beside minLength/maxLength: the decoded string's length in code points, whatever JSON
// escapes or UTF-8 bytes write it. Against the pattern alone on random strings of characters that
// are written plainly, escaped and multi-byte: the bounded grammar accepts a string exactly when
// the pattern does and its length fits.
TEST(JsonSchemaGrammar, PatternWithLengthsCountsDecodedCharacters) {
  struct Case {
    const char* pattern;
    int64_t min, max;
  };
  const std::vector<std::string> alphabet = {"a", "b", "\"", "\\", "\n", "\x01", "\xc3\xa9", "\xf0\x9f\x98\x80"};
  std::mt19937 rng(11);
  for (const Case& c : {Case{"a", 2, 4}, Case{"^[ab\"\\\\]+$", 0, 3}, Case{"\\n|\u00e9", 3, -1},
                        Case{"^(?:a|\\x01|\U0001F600)*b", 1, 5}, Case{"", 2, 2}}) {
    json schema = {{"type", "string"}, {"pattern", c.pattern}, {"minLength", c.min}};
    if (c.max >= 0) schema["maxLength"] = c.max;
    const std::string label = schema.dump();
    const auto bounded = Compile(schema);
    const auto plain = Compile(json{{"type", "string"}, {"pattern", c.pattern}});
    int accepted = 0, rejected_for_length = 0;
    for (int i = 0; i < 3000; ++i) {
      std::string s;
      const size_t length = rng() % 8;
      for (size_t k = 0; k < length; ++k) s += alphabet[rng() % alphabet.size()];
      const std::string text = json(s).dump();
      const bool fits = int64_t(length) >= c.min && (c.max < 0 || int64_t(length) <= c.max);
      const bool matches = Matches(plain, text);
      ASSERT_EQ(Matches(bounded, text), matches && fits) << label << ": " << text;
      accepted += matches && fits ? 1 : 0;
      rejected_for_length += matches && !fits ? 1 : 0;
    }
    EXPECT_GT(accepted, 0) << label;
    EXPECT_GT(rejected_for_length, 0) << label;
  }
}

// A long bound on a pattern of many states multiplies out past the automaton's limit: an error
// naming the keywords and the limit, promptly, never a grammar of millions of rules.
TEST(JsonSchemaGrammar, PatternTimesLengthPastTheLimitIsAnErrorNamingTheKeywords) {
  const auto start = std::chrono::steady_clock::now();
  Result<Grammar> g = CompileJsonSchema(json::parse(R"({"type": "string", "pattern": "a{60}", "maxLength": 1000})"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("'pattern' with 'maxLength': with the length bounds its automaton has more than"),
            std::string::npos)
      << g.status().message();
  Result<Grammar> huge = CompileJsonSchema(json::parse(R"({"type": "string", "pattern": "a", "maxLength": 100000})"));
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.status().message().find("'maxLength' must be an integer from 0 to"), std::string::npos)
      << huge.status().message();
}

}  // namespace
}  // namespace vt::grammar
