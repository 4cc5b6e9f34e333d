#include "engine/bench/grammar_bench.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <vector>

#include "engine/bench/latency_stats.h"
#include "engine/grammar/grammar_matcher.h"
#include "engine/grammar/json_schema_grammar.h"
#include "engine/grammar/token_vocabulary.h"
#include "engine/tokenizer/tokenizer.h"

namespace vt::bench {

namespace {

using Clock = std::chrono::steady_clock;

// Five levels of objects, with strings, integers, numbers, booleans, enums and bounded arrays.
constexpr const char* kNestedSchema = R"({
  "type": "object",
  "properties": {
    "id": {"type": "integer"},
    "name": {"type": "string", "maxLength": 24},
    "level1": {"type": "object", "properties": {
      "tags": {"type": "array", "items": {"enum": ["alpha", "beta", "gamma"]}, "maxItems": 3},
      "level2": {"type": "object", "properties": {
        "score": {"type": "number"},
        "level3": {"type": "object", "properties": {
          "ok": {"type": "boolean"},
          "level4": {"type": "object", "properties": {
            "note": {"type": "string", "maxLength": 16},
            "items": {"type": "array", "items": {"type": "integer"}, "maxItems": 4}
          }, "required": ["note", "items"]}
        }, "required": ["ok", "level4"]}
      }, "required": ["score", "level3"]}
    }, "required": ["tags", "level2"]}
  },
  "required": ["id", "name", "level1"]
})";

double Us(Clock::duration d) { return std::chrono::duration<double, std::micro>(d).count(); }

Result<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

Status RunGrammarBench(const GrammarBenchOptions& o) {
  if (o.steps < 1) return InvalidArgument("--steps must be at least 1");
  Result<std::shared_ptr<Tokenizer>> tokenizer = Tokenizer::FromFile(o.tokenizer);
  if (!tokenizer.ok()) return tokenizer.status();
  std::string schema_text = kNestedSchema;
  if (!o.schema_file.empty()) {
    Result<std::string> text = ReadFile(o.schema_file);
    if (!text.ok()) return text.status();
    schema_text = *text;
  }
  const nlohmann::json schema = nlohmann::json::parse(schema_text, nullptr, false);
  if (schema.is_discarded()) return InvalidArgument("--schema: not JSON");

  const Clock::time_point t0 = Clock::now();
  const grammar::TokenVocabulary vocab((*tokenizer)->TokenBytesTable());
  const Clock::time_point t1 = Clock::now();
  Result<grammar::Grammar> compiled = grammar::CompileJsonSchema(schema);
  if (!compiled.ok()) return compiled.status();
  const auto g = std::make_shared<const grammar::Grammar>(std::move(*compiled));
  const Clock::time_point t2 = Clock::now();

  // Random valid documents, one allowed token at a time; a finished document starts the next.
  std::mt19937_64 rng(o.seed);
  grammar::MaskCache cache;
  std::vector<double> mask_us;
  std::vector<uint8_t> allowed;
  std::vector<int32_t> choices;
  int64_t documents = 0;
  auto matcher = std::make_unique<grammar::GrammarMatcher>(g);
  while (static_cast<int32_t>(mask_us.size()) < o.steps) {
    const Clock::time_point start = Clock::now();
    matcher->AllowedTokens(vocab, &allowed, &cache);
    mask_us.push_back(Us(Clock::now() - start));
    choices.clear();
    for (size_t id = 0; id < allowed.size(); ++id) {
      if (allowed[id]) choices.push_back(static_cast<int32_t>(id));
    }
    if (choices.empty() || matcher->Finished()) {
      ++documents;
      matcher = std::make_unique<grammar::GrammarMatcher>(g);
      continue;
    }
    const int32_t pick = choices[std::uniform_int_distribution<size_t>(0, choices.size() - 1)(rng)];
    if (!matcher->Accept(vocab.bytes(pick))) return Internal("the mask allowed a token the grammar rejects");
  }
  const LatencySummary mask = Summarize(mask_us);
  double worst = 0;
  for (double us : mask_us) worst = std::max(worst, us);
  const double vocab_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  const double compile_ms = std::chrono::duration<double, std::milli>(t2 - t1).count();
  if (o.json) {
    const nlohmann::json doc = {{"tokenizer", o.tokenizer}, {"vocab_size", vocab.size()},
                                {"grammar_rules", g->rules.size()}, {"vocabulary_ms", vocab_ms},
                                {"compile_ms", compile_ms}, {"masks", mask.count},
                                {"documents_finished", documents}, {"mask_cache_hits", cache.hits()},
                                {"mask_us", {{"median", mask.median}, {"p99", mask.p99}, {"max", worst}}}};
    std::printf("%s\n", doc.dump().c_str());
  } else {
    std::printf("grammar bench: %s, %lld tokens; %zu rules compiled in %.2f ms, vocabulary trie in %.1f ms\n",
                o.tokenizer.c_str(), static_cast<long long>(vocab.size()), g->rules.size(), compile_ms, vocab_ms);
    std::printf("next-token mask over %lld steps (%lld documents finished, %lld from the state cache): median %.1f us, "
                "p99 %.1f us, max %.1f us\n",
                static_cast<long long>(mask.count), static_cast<long long>(documents),
                static_cast<long long>(cache.hits()), mask.median, mask.p99, worst);
  }
  return Status::Ok();
}

}  // namespace vt::bench
