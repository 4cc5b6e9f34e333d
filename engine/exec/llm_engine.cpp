#include "engine/exec/llm_engine.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <thread>
#include <utility>

#include "engine/exec/eos_policy.h"
#include "engine/sample/logits_adjust.h"

namespace vt {

int64_t ResolveMaxModelLen(int64_t requested, const ModelConfig& model) {
  return requested > 0 ? std::min(requested, model.max_position_embeddings) : model.max_position_embeddings;
}

namespace {

// The scheduler's limits within what the runner was built for: its KV pool, its buffers, the
// model's context; the end-of-sequence ids by the one EOS policy.
EngineConfig WithRunnersLimits(const ModelRunner& runner, EngineConfig config) {
  config.num_kv_blocks = runner.num_kv_blocks();
  config.block_size = runner.kv_block_size();
  SchedulerConfig& s = config.scheduler;
  s.max_model_len = ResolveMaxModelLen(s.max_model_len, runner.config());
  s.eos_token_ids = ResolveEosTokenIds(s.eos_token_ids, runner.config());
  s.max_num_seqs = std::min(s.max_num_seqs, runner.max_num_seqs());
  s.max_num_batched_tokens = std::min(s.max_num_batched_tokens, runner.max_num_batched_tokens());
  s.max_model_len = std::min(s.max_model_len, runner.max_model_len());
  return config;
}

}  // namespace

LlmEngine::LlmEngine(std::unique_ptr<ModelRunner> runner, EngineConfig config)
    : runner_(std::move(runner)),
      config_(WithRunnersLimits(*runner_, std::move(config))),
      kv_(config_.num_kv_blocks, config_.block_size, config_.prefix_caching),
      scheduler_(config_.scheduler, &kv_),
      seed_source_(std::random_device{}()) {}

Result<RequestId> LlmEngine::AddRequest(std::vector<int32_t> prompt, SamplingParams params) {
  for (int32_t t : prompt) {
    if (t < 0 || t >= runner_->config().vocab_size) {
      return InvalidArgument("token id " + std::to_string(t) + " is outside the vocabulary (" +
                             std::to_string(runner_->config().vocab_size) + ")");
    }
  }
  if (params.grammar != nullptr) {
    if (params.ignore_eos) return InvalidArgument("ignore_eos cannot be combined with a grammar: it ends with EOS");
    if (config_.scheduler.eos_token_ids.empty()) {
      return InvalidArgument("a grammar needs the model's end-of-sequence token, and this model names none");
    }
  }
  if (!params.stop.empty() && !tokenizer_) {
    return InvalidArgument("stop strings need the model's tokenizer, and this engine has none");
  }
  for (const std::string& s : params.stop) {
    if (s.empty()) return InvalidArgument("an empty stop string would end every output before it began");
  }
  auto r = std::make_unique<Request>();
  r->id = next_id_++;
  if (tokenizer_) r->text = std::make_unique<OutputText>(tokenizer_, prompt, params.stop);
  r->prompt = std::move(prompt);
  r->seed = params.seed ? *params.seed : seed_source_();
  r->params = std::move(params);
  const RequestId id = r->id;
  std::shared_ptr<const grammar::Grammar> constrained =
      r->params.grammar != nullptr ? r->params.grammar->grammar : nullptr;
  VT_RETURN_IF_ERROR(scheduler_.Add(std::move(r)));
  if (constrained != nullptr) matchers_.emplace(id, GrammarState{grammar::GrammarMatcher(std::move(constrained)), -1});
  return id;
}

Status LlmEngine::GrammarMask(RequestId id, const grammar::GrammarConstraint& constraint,
                              grammar::TokenBitmask* mask) {
  GrammarState& state = matchers_.at(id);
  grammar::GrammarMatcher& matcher = state.matcher;
  if (state.drawn >= 0) {
    const int32_t token = std::exchange(state.drawn, -1);
    if (!matcher.Accept(constraint.vocabulary->bytes(token))) {
      return Internal("request " + std::to_string(id) + ": drew token " + std::to_string(token) +
                      ", which its grammar does not accept");
    }
  }
  matcher.AllowedTokens(*constraint.vocabulary, mask, constraint.masks.get());
  const int64_t vocab = runner_->config().vocab_size;
  mask->Resize(std::max(mask->size(), vocab));
  if (matcher.CanEnd()) {
    for (int32_t t : config_.scheduler.eos_token_ids) {
      if (t >= 0 && t < vocab) mask->Set(t);
    }
  }
  // Every live parse state has a next character, but the vocabulary may spell none of them.
  if (!mask->Any()) {
    return InvalidArgument("request " + std::to_string(id) +
                           ": no token of the vocabulary continues the output under its grammar");
  }
  return Status::Ok();
}

void LlmEngine::PrepareRows(const std::vector<RowDraw>& draws, const std::vector<const Request*>& drawn_for,
                            std::vector<char>* failed) {
  // A row that throws (out of memory) fails alone: an exception must not leave a pool thread.
  auto prepare = [&](int64_t first, int64_t last) {
    for (int64_t i = first; i < last; ++i) {
      const RowDraw& d = draws[size_t(i)];
      try {
        if (d.adjust != nullptr) {
          PlanAdjustment(runner_->config().vocab_size, *d.params, drawn_for[size_t(i)]->prompt,
                         drawn_for[size_t(i)]->output, config_.scheduler.eos_token_ids, &adjustments_[size_t(i)]);
        }
        if (d.allowed != nullptr &&
            !GrammarMask(drawn_for[size_t(i)]->id, *d.params->grammar, &masks_[size_t(i)]).ok()) {
          (*failed)[size_t(i)] = 1;
        }
      } catch (const std::exception&) {
        (*failed)[size_t(i)] = 1;
      }
    }
  };
  // Below a few rows per thread, waking threads costs more than it saves: ParallelFor runs fewer than
  // two chunks' rows inline, and the pool waits for the first step it would split.
  // Up to eight threads: at 64 constrained rows a step's masks then take about a quarter of a small
  // model's forward, which they overlap (docs/BENCHMARKS.md, "What a grammar costs on an H200").
  constexpr int64_t kRowsPerThread = 8;
  constexpr int kMaxThreads = 8;
  const auto rows = static_cast<int64_t>(draws.size());
  if (rows < 2 * kRowsPerThread) {
    prepare(0, rows);
    return;
  }
  if (prepare_pool_ == nullptr) {
    const int cores = static_cast<int>(std::thread::hardware_concurrency());
    prepare_pool_ = std::make_unique<kernels::cpu::ThreadPool>(std::clamp(cores, 1, kMaxThreads));
  }
  prepare_pool_->ParallelFor(rows, prepare, kRowsPerThread);
}

void LlmEngine::AdvanceGrammar(RequestId id, int32_t token) {
  const auto& eos = config_.scheduler.eos_token_ids;
  if (std::find(eos.begin(), eos.end(), token) == eos.end()) matchers_.at(id).drawn = token;
}

Result<StepResult> LlmEngine::Step() {
  StepResult result;
  SchedulerStep step = scheduler_.Schedule();
  if (step.empty()) return result;
  const auto started = std::chrono::steady_clock::now();
  std::vector<ForwardSeq> batch;
  for (const ScheduledChunk& c : step.chunks) {
    batch.push_back({c.tokens.data(), static_cast<int64_t>(c.tokens.size()), c.start_pos, c.block_table.data(),
                     static_cast<int64_t>(c.block_table.size()), c.sample});
  }
  // Without logprobs a step needs only each sampling row's token, which the runner may draw where
  // the logits are (adjustments and grammar masks go with the draws); with them, the rows come to
  // the host sampler.
  std::vector<RowDraw> draws;
  std::vector<const Request*> drawn_for;
  bool wants_rows = false;
  for (const ScheduledChunk& c : step.chunks) {
    if (!c.sample) continue;
    const Request* r = scheduler_.Find(c.id);
    draws.push_back({&r->params, r->seed, static_cast<int64_t>(r->output.size()), nullptr, nullptr});
    drawn_for.push_back(r);
    wants_rows = wants_rows || r->params.logprobs >= 0;
  }
  std::vector<SampledToken> sampled(draws.size());
  // A grammar that cannot go on ends its own request (aborted), never the step of the others.
  std::vector<RequestId> grammar_failed;
  if (!wants_rows) {
    masks_.resize(draws.size());
    adjustments_.resize(draws.size());
    bool prepared = false;
    for (size_t i = 0; i < draws.size(); ++i) {
      if (draws[i].params->ChangesLogitValues()) draws[i].adjust = &adjustments_[i];
      if (draws[i].params->grammar != nullptr) draws[i].allowed = &masks_[i];
      prepared = prepared || draws[i].adjust != nullptr || draws[i].allowed != nullptr;
    }
    // A failed row still samples (under its empty mask) with the others; its token is dropped.
    std::vector<char> failed(draws.size(), 0);
    auto prepare_draws = [&] { PrepareRows(draws, drawn_for, &failed); };
    std::vector<int32_t> tokens;
    VT_RETURN_IF_ERROR(runner_->ForwardSample(batch, draws, prepared ? PrepareDraws(prepare_draws) : PrepareDraws(),
                                              &tokens));
    for (size_t i = 0; i < draws.size(); ++i) {
      if (failed[i]) grammar_failed.push_back(drawn_for[i]->id);
    }
    if (tokens.size() != draws.size()) return Internal("the runner drew a token count other than the rows'");
    for (size_t i = 0; i < sampled.size(); ++i) {
      sampled[i].token = tokens[i];
      const RequestId id = drawn_for[i]->id;
      if (draws[i].params->grammar == nullptr ||
          std::find(grammar_failed.begin(), grammar_failed.end(), id) != grammar_failed.end()) {
        continue;
      }
      AdvanceGrammar(id, tokens[i]);
    }
  } else {
    std::vector<float> logits;
    VT_RETURN_IF_ERROR(runner_->Forward(batch, &logits));
    const int64_t vocab = runner_->config().vocab_size;
    if (logits.size() != draws.size() * static_cast<size_t>(vocab)) {
      return Internal("the runner returned logits rows other than the sampled rows'");
    }
    std::vector<float> adjusted;
    for (size_t i = 0; i < sampled.size(); ++i) {
      const RowDraw& d = draws[i];
      const float* row = logits.data() + i * vocab;
      if (!d.params->AdjustsLogits()) {
        sampled[i] = Sample(row, vocab, *d.params, d.seed, d.token_index);
        continue;
      }
      adjusted.assign(row, row + vocab);
      AdjustLogits(adjusted.data(), vocab, *d.params, drawn_for[i]->prompt, drawn_for[i]->output,
                   config_.scheduler.eos_token_ids);
      const RequestId id = drawn_for[i]->id;
      if (d.params->grammar != nullptr) {
        masks_.resize(1);
        if (!GrammarMask(id, *d.params->grammar, &masks_[0]).ok()) {
          grammar_failed.push_back(id);
          continue;
        }
        MaskRow(adjusted.data(), vocab, masks_[0]);
      }
      sampled[i] = Sample(adjusted.data(), vocab, *d.params, d.seed, d.token_index, row);
      if (d.params->grammar != nullptr) AdvanceGrammar(id, sampled[i].token);
    }
  }
  const std::chrono::duration<double> step_time = std::chrono::steady_clock::now() - started;
  scheduler_.RecordStepTime(step, step_time.count());
  for (RequestId id : grammar_failed) Abort(id);
  size_t row = 0;
  for (const ScheduledChunk& c : step.chunks) {
    if (!c.sample) continue;
    SampledToken& token = sampled[row++];
    if (std::find(grammar_failed.begin(), grammar_failed.end(), c.id) == grammar_failed.end()) {
      result.tokens.push_back({c.id, std::move(token), ""});
    }
  }
  result.finished = scheduler_.Update(step, result.tokens);
  result.finished.insert(result.finished.end(), grammar_failed.begin(), grammar_failed.end());
  result.num_tokens = step.num_tokens;
  ApplyText(result);
  return result;
}

void LlmEngine::ApplyText(StepResult& result) {
  for (SampledResult& t : result.tokens) {
    Request* r = scheduler_.Find(t.id);
    if (r == nullptr || !r->text || r->finish == FinishReason::kAborted) continue;
    bool stopped = false;
    t.text = r->text->Add(t.token.token, &stopped);
    if (stopped) {
      // A stop string in the text of the token that also ended the request (EOS, length) still
      // ends it as "stop": the text was cut.
      if (r->state != RequestState::kFinished) result.finished.push_back(t.id);
      scheduler_.FinishWith(t.id, FinishReason::kStop);
    } else if (r->state == RequestState::kFinished) {
      t.text += r->text->Finish();
    }
  }
}

}  // namespace vt
