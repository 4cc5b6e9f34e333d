// `vt generate`: loads a model, runs every prompt through the continuously
// batched engine and prints the continuations (text, or ids without a
// tokenizer; --json for machines).
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <new>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "engine/cli/commands.h"
#include "engine/cli/model_flags.h"
#include "engine/exec/step_loop.h"
#include "engine/grammar/ebnf_grammar.h"
#include "engine/grammar/grammar_constraint.h"
#include "engine/grammar/json_schema_grammar.h"
#include "engine/grammar/regex_grammar.h"
#include "engine/session/session.h"
#include "engine/tokenizer/tokenizer.h"

namespace vt::cli {

namespace {

struct GenerateOptions {
  SessionSpec session;
  std::vector<std::string> prompts;
  std::vector<std::string> prompt_ids;
  int64_t max_tokens = 16;
  float temperature = 0.0f;
  float top_p = 1.0f;
  int32_t top_k = 0;
  float min_p = 0.0f;
  std::optional<uint64_t> seed;
  bool ignore_eos = false;
  std::vector<std::string> stop;
  int32_t logprobs = -1;
  float presence_penalty = 0.0f;
  float frequency_penalty = 0.0f;
  float repetition_penalty = 1.0f;
  int64_t min_tokens = 0;
  std::vector<std::string> logit_bias;  // ID=BIAS
  std::string json_schema;              // a file
  std::optional<std::string> regex;
  std::string grammar;                  // a file of GBNF rules
  bool json = false;
};

Result<std::vector<int32_t>> ParseIds(const std::string& text) {
  std::vector<int32_t> ids;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    char* end = nullptr;
    const long v = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || v < 0 || v > INT32_MAX) {
      return InvalidArgument("--prompt-ids: '" + item + "' is not a token id");
    }
    ids.push_back(static_cast<int32_t>(v));
  }
  if (ids.empty()) return InvalidArgument("--prompt-ids: no ids");
  return ids;
}

// --logit-bias ID=BIAS, checked as the server checks logit_bias.
Result<std::pair<int32_t, float>> ParseLogitBias(const std::string& item, int64_t vocab) {
  const size_t eq = item.find('=');
  if (eq != std::string::npos) {
    const std::string id_text = item.substr(0, eq), bias_text = item.substr(eq + 1);
    char* id_end = nullptr;
    char* bias_end = nullptr;
    const long long id = std::strtoll(id_text.c_str(), &id_end, 10);
    const double bias = std::strtod(bias_text.c_str(), &bias_end);
    if (!id_text.empty() && *id_end == '\0' && !bias_text.empty() && *bias_end == '\0' && id >= 0 && id < vocab &&
        bias >= -100.0 && bias <= 100.0) {
      return std::pair<int32_t, float>(static_cast<int32_t>(id), static_cast<float>(bias));
    }
  }
  return InvalidArgument("--logit-bias: '" + item + "' is not ID=BIAS with an id below " + std::to_string(vocab) +
                         " and a bias in [-100, 100]");
}

// A constraint's grammar compiled against the tokenizer's vocabulary; `option` names it in errors.
Result<std::shared_ptr<const grammar::GrammarConstraint>> ForVocabulary(const std::string& option,
                                                                       Result<grammar::Grammar> compiled,
                                                                       const Tokenizer* tokenizer) {
  if (!tokenizer) return InvalidArgument(option + " needs the model's tokenizer, and this model has none");
  if (!compiled.ok()) return InvalidArgument(option + ": " + compiled.status().message());
  return grammar::Constrain(std::move(*compiled),
                            std::make_shared<const grammar::TokenVocabulary>(tokenizer->TokenBytesTable()));
}

// A file's whole text; empty when it cannot be opened.
std::optional<std::string> ReadText(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// --json-schema FILE, read and compiled.
Result<grammar::Grammar> LoadJsonSchema(const std::string& path) {
  const std::optional<std::string> text = ReadText(path);
  if (!text) return NotFound("cannot open " + path);
  const nlohmann::json schema = nlohmann::json::parse(*text, nullptr, false);
  if (schema.is_discarded()) return InvalidArgument(path + " is not valid JSON");
  Result<grammar::Grammar> compiled = grammar::CompileJsonSchema(schema);
  if (!compiled.ok()) return InvalidArgument(path + ": " + compiled.status().message());
  return compiled;
}

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

double PeakRssMb() {
  struct rusage usage {};
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux reports KiB
}

int Fail(const Status& s) {
  std::fprintf(stderr, "vt generate: %s\n", s.message().c_str());
  return 1;
}

int Run(GenerateOptions o) {
  if (Status s = ResolveModelFlags(&o.session); !s.ok()) return Fail(s);
  if (o.prompts.empty() == o.prompt_ids.empty()) {
    std::fprintf(stderr, "vt generate: give --prompt or --prompt-ids (not both)\n");
    return 2;
  }
  if (Result<LoadFormat> format = ParseLoadFormat(o.session.load_format); !format.ok()) return Fail(format.status());
  // The grammar is judged before the model loads: a mistake in it should not wait for the weights.
  std::optional<grammar::Grammar> ebnf;
  if (!o.grammar.empty()) {
    const std::optional<std::string> text = ReadText(o.grammar);
    if (!text) {  // a file that cannot be read is a usage error, like a missing one
      std::fprintf(stderr, "vt generate: --grammar: cannot read %s\n", o.grammar.c_str());
      return 2;
    }
    Result<grammar::Grammar> compiled = grammar::CompileEbnf(*text);
    if (!compiled.ok()) return Fail(InvalidArgument("--grammar: " + o.grammar + ": " + compiled.status().message()));
    ebnf = std::move(*compiled);
  }

  // A model directory's tokenizer is optional: --prompt-ids work without it.
  Result<std::shared_ptr<const Tokenizer>> loaded_tokenizer = LoadModelTokenizer(o.session.model);
  if (!loaded_tokenizer.ok()) return Fail(loaded_tokenizer.status());
  const std::shared_ptr<const Tokenizer> tokenizer = *loaded_tokenizer;
  std::vector<std::vector<int32_t>> prompts;
  for (const std::string& text : o.prompts) {
    if (!tokenizer) {
      return Fail(InvalidArgument((IsPreset(o.session.model) ? std::string("a preset has no tokenizer")
                                                             : o.session.model + " has no tokenizer.json") +
                                  ": give token ids with --prompt-ids"));
    }
    prompts.push_back(tokenizer->Encode(text, /*add_special_tokens=*/true));
  }
  for (const std::string& s : o.prompt_ids) {
    Result<std::vector<int32_t>> ids = ParseIds(s);
    if (!ids.ok()) return Fail(ids.status());
    prompts.push_back(*ids);
  }

  // The pool holds this run's requests at full length (no preemption); a request longer than
  // the whole pool is refused by name.
  o.session.tokenizer = tokenizer;
  o.session.kv_demand = [&](const ModelConfig& model) {
    std::vector<int64_t> lengths;
    for (const auto& p : prompts) {
      lengths.push_back(std::min<int64_t>(static_cast<int64_t>(p.size()) + o.max_tokens, model.max_position_embeddings));
    }
    return KvDemand::PerSequence(lengths, o.session.engine.block_size);
  };
  Result<Session> session = OpenSession(o.session);
  if (!session.ok()) return Fail(session.status());
  const ModelConfig& config = session->model;
  const double load_s = session->load_seconds;
  const uint64_t weight_bytes = session->weight_bytes;
  LlmEngine& engine = *session->engine;

  SamplingParams params;
  params.max_tokens = o.max_tokens;
  params.temperature = o.temperature;
  params.top_p = o.top_p;
  params.top_k = o.top_k;
  params.min_p = o.min_p;
  params.seed = o.seed;
  params.ignore_eos = o.ignore_eos;
  params.stop = o.stop;
  params.logprobs = o.logprobs;
  params.presence_penalty = o.presence_penalty;
  params.frequency_penalty = o.frequency_penalty;
  params.repetition_penalty = o.repetition_penalty;
  params.min_tokens = o.min_tokens;
  if (o.min_tokens > o.max_tokens) return Fail(InvalidArgument("--min-tokens is above --max-tokens"));
  for (const std::string& item : o.logit_bias) {
    Result<std::pair<int32_t, float>> bias = ParseLogitBias(item, config.vocab_size);
    if (!bias.ok()) return Fail(bias.status());
    params.logit_bias.push_back(*bias);
  }
  if (!o.json_schema.empty() || o.regex || ebnf) {
    Result<std::shared_ptr<const grammar::GrammarConstraint>> c =
        ebnf      ? ForVocabulary("--grammar", std::move(*ebnf), tokenizer.get())
        : o.regex ? ForVocabulary("--regex", grammar::CompileRegex(*o.regex), tokenizer.get())
                  : ForVocabulary("--json-schema", LoadJsonSchema(o.json_schema), tokenizer.get());
    if (!c.ok()) return Fail(c.status());
    params.grammar = *c;
  }
  std::vector<RequestId> ids;
  int64_t prompt_tokens = 0;
  for (auto& p : prompts) {
    prompt_tokens += static_cast<int64_t>(p.size());
    Result<RequestId> id = engine.AddRequest(p, params);
    if (!id.ok()) return Fail(id.status());
    ids.push_back(*id);
  }

  // One prompt in text mode streams its continuation (the engine's text) as it is generated.
  const bool stream = tokenizer && !o.json && ids.size() == 1;
  const Clock::time_point start = Clock::now();
  std::map<RequestId, double> ttft;
  int64_t generated = 0;
  const Status ran = RunSteps(engine, [&](const StepResult& step) {
    for (const SampledResult& t : step.tokens) {
      ++generated;
      if (!ttft.count(t.id)) ttft[t.id] = Seconds(start, Clock::now());
      if (stream) {
        std::fputs(t.text.c_str(), stdout);
        std::fflush(stdout);
      }
    }
    return true;
  });
  if (!ran.ok()) return Fail(ran);
  if (stream) std::printf("\n");
  const double total_s = Seconds(start, Clock::now());
  // Prefill ends when the last prompt has its first token; what follows is decode.
  double prefill_s = 0.0;
  for (const auto& [id, s] : ttft) prefill_s = std::max(prefill_s, s);
  const int64_t decode_tokens = generated - static_cast<int64_t>(ids.size());
  const double decode_s = total_s - prefill_s;
  nlohmann::json timings = {
      {"load_s", load_s},
      {"prefill_s", prefill_s},
      {"prefill_tokens_per_s", prefill_s > 0 ? prompt_tokens / prefill_s : 0.0},
      {"decode_s", decode_s},
      {"decode_tokens_per_s", decode_s > 0 && decode_tokens > 0 ? decode_tokens / decode_s : 0.0},
      {"total_s", total_s},
      {"peak_rss_mb", PeakRssMb()},
      {"weight_mb", static_cast<double>(weight_bytes) / (1 << 20)},
  };

  for (size_t i = 0; i < ids.size(); ++i) {
    const RequestId id = ids[i];
    std::unique_ptr<Request> r = engine.TakeFinished(id);
    nlohmann::json text = nullptr;
    if (r->text) text = r->text->text();
    if (o.json) {
      nlohmann::json j = {{"token_ids", r->output},
                          {"text", text},
                          {"finish_reason", FinishReasonName(r->finish)},
                          {"prompt_tokens", r->prompt.size()},
                          {"timings", timings}};
      j["timings"]["ttft_ms"] = ttft[id] * 1000.0;
      if (o.logprobs >= 0) {
        nlohmann::json lp = nlohmann::json::array();
        for (const SampledToken& s : r->output_logprobs) {
          nlohmann::json top = nlohmann::json::array();
          for (const TokenLogprob& t : s.top) top.push_back({{"token_id", t.token}, {"logprob", t.logprob}});
          lp.push_back({{"token_id", s.token}, {"logprob", s.logprob}, {"top", top}});
        }
        j["logprobs"] = lp;
      }
      std::printf("%s\n", j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    } else if (stream) {
      continue;
    } else if (ids.size() > 1 && tokenizer) {
      // Continuations span lines: a header keeps them apart, as head(1) does.
      std::printf("%s==> prompt %zu <==\n%s\n", i ? "\n" : "", i + 1, text.get<std::string>().c_str());
    } else if (tokenizer) {
      std::printf("%s\n", text.get<std::string>().c_str());
    } else {
      std::string line;
      for (int32_t t : r->output) line += (line.empty() ? "" : ",") + std::to_string(t);
      std::printf("%s\n", line.c_str());
    }
  }
  if (!o.json) {
    std::fprintf(stderr,
                 "%s: %zu prompt(s), %lld prompt tokens, %lld generated; weights %.0f MiB loaded in %.2f s; "
                 "prefill %.1f tok/s, decode %.1f tok/s; peak RSS %.0f MiB\n",
                 o.session.model.c_str(), ids.size(), static_cast<long long>(prompt_tokens), static_cast<long long>(generated),
                 static_cast<double>(weight_bytes) / (1 << 20), load_s, timings["prefill_tokens_per_s"].get<double>(),
                 timings["decode_tokens_per_s"].get<double>(), PeakRssMb());
  }
  return 0;
}

}  // namespace

Command AddGenerateCommand(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand("generate", "Generate text from a prompt (continuously batched)");
  auto o = std::make_shared<GenerateOptions>();
  AddModelFlags(app, &o->session);
  app->add_option("--prompt", o->prompts, "Prompt text; repeat for a batch");
  app->add_option("--prompt-ids", o->prompt_ids, "Comma-separated token ids, used verbatim; repeat for a batch");
  app->add_option("--max-tokens", o->max_tokens, "Tokens to generate per prompt")->check(CLI::PositiveNumber);
  app->add_option("--temperature", o->temperature, "0 (default) is greedy")->check(CLI::NonNegativeNumber);
  app->add_option("--top-p", o->top_p, "Nucleus sampling mass")->check(CLI::Range(0.0, 1.0));
  app->add_option("--top-k", o->top_k, "Keep the k most likely tokens (0: off)");
  app->add_option("--min-p", o->min_p, "Drop tokens below min-p times the top probability")->check(CLI::Range(0.0, 1.0));
  app->add_option("--seed", o->seed, "Sampling seed (same seed, same output)");
  app->add_flag("--ignore-eos", o->ignore_eos, "Keep generating past end-of-sequence tokens");
  app->add_option("--stop", o->stop, "End the text right before this string (finish_reason stop); repeatable");
  app->add_option("--logprobs", o->logprobs, "With --json: each token's logprob and the top N alternatives")
      ->check(CLI::Range(0, 20));
  app->add_option("--presence-penalty", o->presence_penalty, "Subtracted from the logit of each token the output holds")
      ->check(CLI::Range(-2.0, 2.0));
  app->add_option("--frequency-penalty", o->frequency_penalty, "Subtracted per occurrence in the output")
      ->check(CLI::Range(-2.0, 2.0));
  app->add_option("--repetition-penalty", o->repetition_penalty,
                  "HF's: divides positive, multiplies negative logits of prompt and output tokens (1: off)")
      ->check(CLI::PositiveNumber);
  app->add_option("--min-tokens", o->min_tokens, "EOS and stop tokens cannot end the output before this many tokens")
      ->check(CLI::NonNegativeNumber);
  app->add_option("--logit-bias", o->logit_bias, "ID=BIAS: add BIAS (-100..100) to token ID's logit; repeatable");
  CLI::Option* schema =
      app->add_option("--json-schema", o->json_schema, "The output is JSON that validates against the schema in FILE")
          ->check(CLI::ExistingFile);
  CLI::Option* regex =
      app->add_option("--regex", o->regex, "The whole output matches the regular expression RE")->excludes(schema);
  app->add_option("--grammar", o->grammar, "The output is a sentence of the GBNF grammar in FILE (start rule: root)")
      ->check(CLI::ExistingFile)
      ->excludes(schema)
      ->excludes(regex);
  app->add_flag("--json", o->json, "One JSON object per prompt: token_ids, text, finish_reason, timings");
  return {app, [o] {
    try {
      return Run(*o);
    } catch (const std::bad_alloc&) {
      std::fprintf(stderr, "vt generate: out of memory\n");
      return 1;
    }
  }};
}

}  // namespace vt::cli
