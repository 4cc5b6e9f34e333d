#include "engine/bench/grammar_bench.h"

#include <algorithm>
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
#include "engine/grammar/regex_grammar.h"
#include "engine/grammar/grammar_constraint.h"
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

// The grammar the options name: the regex, else the schema file, else the built-in schema.
Result<grammar::Grammar> CompileBenchGrammar(const GrammarBenchOptions& o) {
  if (!o.regex.empty()) return grammar::CompileRegex(o.regex);
  std::string schema_text = kNestedSchema;
  if (!o.schema_file.empty()) {
    Result<std::string> text = ReadFile(o.schema_file);
    if (!text.ok()) return text.status();
    schema_text = *text;
  }
  const nlohmann::json schema = nlohmann::json::parse(schema_text, nullptr, false);
  if (schema.is_discarded()) return InvalidArgument("--schema: not JSON");
  return grammar::CompileJsonSchema(schema);
}

}  // namespace

Status RunGrammarBench(const GrammarBenchOptions& o) {
  if (o.steps < 1) return InvalidArgument("--steps must be at least 1");
  Result<std::shared_ptr<Tokenizer>> tokenizer = Tokenizer::FromFile(o.tokenizer);
  if (!tokenizer.ok()) return tokenizer.status();

  const Clock::time_point t0 = Clock::now();
  const auto vocabulary = std::make_shared<const grammar::TokenVocabulary>((*tokenizer)->TokenBytesTable());
  const grammar::TokenVocabulary& vocab = *vocabulary;
  const Clock::time_point t1 = Clock::now();
  Result<grammar::Grammar> compiled = CompileBenchGrammar(o);
  if (!compiled.ok()) return compiled.status();
  const Clock::time_point t2 = Clock::now();
  Result<std::shared_ptr<const grammar::GrammarConstraint>> constrained = grammar::Constrain(std::move(*compiled), vocabulary);
  if (!constrained.ok()) return constrained.status();
  const std::shared_ptr<const grammar::GrammarConstraint> constraint = std::move(*constrained);
  const Clock::time_point t3 = Clock::now();
  const std::shared_ptr<const grammar::Grammar>& g = constraint->grammar;
  const grammar::TokenMaskTable* table = constraint->masks.get();

  // Random valid documents, one allowed token at a time; a finished document starts the next. A step
  // masks and advances every one of `documents` walked side by side, as an engine step does for a
  // batch of constrained requests; its host cost is what the step's forward has to hide.
  std::mt19937_64 rng(o.seed);
  std::vector<double> mask_us, advance_us, step_us;
  grammar::TokenBitmask allowed;
  std::vector<int32_t> choices;
  int64_t finished = 0, most_stacks = 0;
  std::vector<std::unique_ptr<grammar::GrammarMatcher>> matchers;
  for (int32_t d = 0; d < o.documents; ++d) matchers.push_back(std::make_unique<grammar::GrammarMatcher>(g));
  while (static_cast<int32_t>(step_us.size()) < o.steps) {
    double step = 0.0;
    for (std::unique_ptr<grammar::GrammarMatcher>& matcher : matchers) {
      const Clock::time_point start = Clock::now();
      matcher->AllowedTokens(vocab, &allowed, o.walk_only ? nullptr : table);
      mask_us.push_back(Us(Clock::now() - start));
      step += mask_us.back();
      most_stacks = std::max(most_stacks, matcher->live_stacks());
      choices.clear();
      for (int64_t id = 0; id < allowed.size(); ++id) {
        if (allowed.Test(id)) choices.push_back(static_cast<int32_t>(id));
      }
      if (choices.empty() || matcher->Finished()) {
        ++finished;
        matcher = std::make_unique<grammar::GrammarMatcher>(g);
        continue;
      }
      const int32_t pick = choices[std::uniform_int_distribution<size_t>(0, choices.size() - 1)(rng)];
      const Clock::time_point before = Clock::now();
      if (!matcher->Accept(vocab.bytes(pick))) return Internal("the mask allowed a token the grammar rejects");
      advance_us.push_back(Us(Clock::now() - before));
      step += advance_us.back();
    }
    step_us.push_back(step);
  }
  const LatencySummary mask = Summarize(mask_us), advance = Summarize(advance_us), steps = Summarize(step_us);
  const double mask_max = *std::max_element(mask_us.begin(), mask_us.end());
  const double step_max = *std::max_element(step_us.begin(), step_us.end());
  const double advance_max = advance_us.empty() ? 0.0 : *std::max_element(advance_us.begin(), advance_us.end());
  const double vocab_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  const double compile_ms = std::chrono::duration<double, std::milli>(t2 - t1).count();
  const double table_ms = std::chrono::duration<double, std::milli>(t3 - t2).count();
  if (o.json) {
    const nlohmann::json doc = {
        {"tokenizer", o.tokenizer},
        {"grammar", o.regex.empty() ? "json_schema" : "regex"},
        {"vocab_size", vocab.size()},
        {"grammar_rules", g->rules.size()},
        {"vocabulary_ms", vocab_ms},
        {"compile_ms", compile_ms},
        {"mask_table", {{"ms", table_ms}, {"positions", table->positions()},
                        {"uncertain_tokens", table->uncertain_tokens()}, {"bytes", table->bytes()}}},
        {"walk_only", o.walk_only},
        {"masks", mask.count},
        {"documents_finished", finished},
        {"most_live_stacks", most_stacks},
        {"mask_us", {{"median", mask.median}, {"p99", mask.p99}, {"max", mask_max}}},
        {"advance_us", {{"median", advance.median}, {"p99", advance.p99}, {"max", advance_max}}},
        {"documents_side_by_side", o.documents},
        {"step_us", {{"median", steps.median}, {"p99", steps.p99}, {"max", step_max}}}};
    std::printf("%s\n", doc.dump().c_str());
  } else {
    std::printf("grammar bench: %s, %lld tokens; %zu rules compiled in %.2f ms, vocabulary trie in %.1f ms\n",
                o.tokenizer.c_str(), static_cast<long long>(vocab.size()), g->rules.size(), compile_ms, vocab_ms);
    std::printf("mask table: %lld positions in %.1f ms, %lld uncertain tokens, %.1f MiB\n",
                static_cast<long long>(table->positions()), table_ms, static_cast<long long>(table->uncertain_tokens()),
                double(table->bytes()) / (1 << 20));
    std::printf("%lld next-token masks%s (%lld documents finished, at most %lld live stacks): median %.1f us, "
                "p99 %.1f us, max %.1f us\n",
                static_cast<long long>(mask.count), o.walk_only ? " by vocabulary walks" : "",
                static_cast<long long>(finished), static_cast<long long>(most_stacks), mask.median, mask.p99, mask_max);
    std::printf("advance by the drawn token: median %.1f us, p99 %.1f us, max %.1f us\n", advance.median, advance.p99,
                advance_max);
    if (o.documents > 1) {
      std::printf("a step of %d documents' masks and advances (one thread): median %.1f us, p99 %.1f us, max %.1f us\n",
                  o.documents, steps.median, steps.p99, step_max);
    }
  }
  return Status::Ok();
}

}  // namespace vt::bench
