// `vt bench`: benchmarks users compare against other engines. `decode` sweeps end-to-end decode
// throughput over concurrency on any backend (so it exists in every build); `serve` loads an
// OpenAI-compatible server over HTTP; `attention` times the
// paged decode-attention arms, `w4a16` the int4 GEMM and `gemm` the bf16 linear layers against
// cuBLAS, all CUDA-only.
#include <cstdio>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "engine/bench/decode_bench.h"
#include "engine/bench/grammar_bench.h"
#include "engine/bench/serve_bench.h"
#include "engine/cli/commands.h"
#include "engine/cli/model_flags.h"

#ifdef VT_HAVE_CUDA
#include "kernels/cuda/bench/attention_bench.h"
#include "kernels/cuda/bench/prefill_bench.h"
#include "kernels/cuda/bench/dense_gemm_bench.h"
#include "kernels/cuda/bench/w4a16_bench.h"
#endif

namespace vt::cli {

namespace {

int RunDecode(bench::DecodeBenchOptions options) {
  try {
    Status status = ResolveModelFlags(&options.session);
    if (status.ok()) status = bench::RunDecodeBench(options);
    if (status.ok()) return 0;
    std::fprintf(stderr, "vt bench decode: %s\n", status.message().c_str());
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "vt bench decode: out of memory; try fewer or shorter requests\n");
  }
  return 1;
}

int RunGrammar(const bench::GrammarBenchOptions& options) {
  const Status status = bench::RunGrammarBench(options);
  if (status.ok()) return 0;
  std::fprintf(stderr, "vt bench grammar: %s\n", status.message().c_str());
  return status.code() == StatusCode::kInvalidArgument ? 2 : 1;
}

int RunServe(const bench::ServeBenchOptions& options) {
  const Status status = bench::RunServeBench(options);
  if (status.ok()) return 0;
  std::fprintf(stderr, "vt bench serve: %s\n", status.message().c_str());
  return status.code() == StatusCode::kInvalidArgument ? 2 : 1;
}

std::shared_ptr<bench::ServeBenchOptions> AddServeOptions(CLI::App* serve) {
  auto o = std::make_shared<bench::ServeBenchOptions>();
  serve->add_option("--base-url", o->base_url, "The server, http://HOST:PORT")->capture_default_str();
  serve->add_option("--endpoint", o->endpoint, "The completions endpoint")
      ->capture_default_str();
  serve->add_option("--model", o->model, "The model name to request (default: none, the server's model)");
  serve->add_option("--num-prompts", o->num_prompts, "Requests in total")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  serve->add_option("--concurrency", o->concurrency, "Requests in flight at once (one connection each)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  serve->add_option("--extra-body", o->extra_body,
                    "A JSON object merged into every request body, e.g. '{\"response_format\": {...}}'");
  serve->add_option("--request-rate", o->request_rate,
                    "Requests per second, Poisson arrivals (0: each connection sends as soon as it is free)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  serve->add_option("--input-len", o->input_len, "Prompt tokens per request (random ids, or text with --tokenizer)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  serve->add_option("--output-len", o->output_len, "Output tokens per request (max_tokens, EOS ignored)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  serve->add_option("--output-lens-from", o->output_lens_from,
                    "A previous run's --json report: each request asks for that run's request's output tokens "
                    "(same seed, same prompts; e.g. free requests replaying a constrained run's lengths)");
  serve->add_option("--vocab-size", o->vocab_size, "Prompt ids are drawn from [0, this)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  serve->add_option("--tokenizer", o->tokenizer,
                    "A tokenizer.json: send text prompts that encode to --input-len tokens by it, not token ids");
  serve->add_option("--seed", o->seed, "Seed of the random prompts")->capture_default_str();
  serve->add_option("--timeout", o->timeout_s, "Seconds a request may wait for its next bytes")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  serve->add_option("--request-timeout", o->request_timeout_s,
                    "Seconds a request's whole answer may take, its stream included")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  serve->add_flag("--json", o->json, "Print one JSON object instead of a table");
  return o;
}

std::shared_ptr<bench::DecodeBenchOptions> AddDecodeOptions(CLI::App* decode) {
  auto o = std::make_shared<bench::DecodeBenchOptions>();
  AddModelFlags(decode, &o->session);
  // CLI11 would read an empty item as 0; it is a missing level instead.
  const CLI::Validator non_empty([](std::string& item) { return item.empty() ? "an empty level" : ""; }, "");
  decode->add_option("--concurrency", o->concurrencies, "Concurrency levels: requests decoded at once")
      ->delimiter(',')
      ->check(non_empty)
      ->capture_default_str();
  decode->add_option("--input-len", o->input_len, "Prompt tokens per request (random ids)")->capture_default_str();
  decode->add_option("--output-len", o->output_len, "Output tokens per request (greedy, EOS ignored)")
      ->capture_default_str();
  decode->add_option("--seed", o->seed, "Seed of the random prompts")->capture_default_str();
  decode->add_option("--max-num-batched-tokens", o->max_num_batched_tokens,
                     "Token budget of one step (0: every prompt of a level at once, up to 16384)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  decode->add_option("--max-prefill-beside-decodes", o->max_prefill_tokens_beside_decodes,
                     "Prompt tokens a step may carry beside running decodes (0: the scheduler's default)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  decode->add_option("--max-decode-slowdown", o->max_decode_slowdown, kMaxDecodeSlowdownHelp)
      ->check(MaxDecodeSlowdownValidator())
      ->capture_default_str();
  decode->add_flag("--json", o->json, "Print JSON instead of a table");
  decode->add_option("--plot", o->plot_path, "Write an SVG of tok/s and the roofline against concurrency");
  decode->add_option("--ab", o->ab,
                     "Same-binary A/B: two NAME=VALUE environment settings; reruns this command alternately "
                     "under each and reports the B/A tok/s ratios (--plot is ignored)")
      ->expected(2);
  decode->add_option("--ab-rounds", o->ab_rounds, "A/B pairs to run")->capture_default_str();
  return o;
}

}  // namespace

Command AddBenchCommand(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand("bench", "Benchmark decode, attention kernels and GEMMs");
  app->require_subcommand(1);
  CLI::App* decode =
      app->add_subcommand("decode", "Decode throughput, TTFT, TPOT and inter-token latency over concurrency, beside the weights + KV roofline");
  CLI::App* attention = app->add_subcommand("attention", "Time the paged decode-attention arms (CUDA graphs)");
  CLI::App* w4a16 = app->add_subcommand("w4a16", "Time the W4A16 GEMM against cuBLAS bf16 (CUDA graphs)");
  CLI::App* gemm =
      app->add_subcommand("gemm", "Time the bf16 linear layers as the engine runs them against cuBLAS (CUDA graphs)");
  CLI::App* prefill =
      app->add_subcommand("prefill-attention", "Time the tensor-core prefill attention: prompts and chunks (CUDA graphs)");
  std::shared_ptr<bench::DecodeBenchOptions> decode_options = AddDecodeOptions(decode);
  CLI::App* grammar = app->add_subcommand("grammar", "Time the grammar engine's next-token mask on a vocabulary");
  auto grammar_options = std::make_shared<bench::GrammarBenchOptions>();
  grammar->add_option("--tokenizer", grammar_options->tokenizer, "A tokenizer.json")->required();
  CLI::Option* bench_schema =
      grammar->add_option("--schema", grammar_options->schema_file, "A JSON Schema file (default: a nested schema)");
  grammar->add_option("--regex", grammar_options->regex, "Time a regular expression instead of a schema")
      ->excludes(bench_schema);
  grammar->add_option("--steps", grammar_options->steps, "Steps to time (each masks every document)")->capture_default_str();
  grammar->add_option("--seed", grammar_options->seed, "Seed of the random walk")->capture_default_str();
  grammar->add_option("--documents", grammar_options->documents,
                      "Documents walked side by side, each step masking every one (a batch of constrained requests)")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  grammar->add_flag("--json", grammar_options->json, "Print JSON instead of text");
  grammar->add_flag("--walk-only", grammar_options->walk_only,
                    "Mask by walking the whole vocabulary, without the precomputed table (for comparison)");
  CLI::App* serve = app->add_subcommand(
      "serve", "Load an OpenAI-compatible server: streamed requests at a concurrency; throughput, TTFT, TPOT, ITL");
  std::shared_ptr<bench::ServeBenchOptions> serve_options = AddServeOptions(serve);
#ifdef VT_HAVE_CUDA
  auto w4 = std::make_shared<kernels::cuda::W4A16BenchOptions>();
  w4a16->add_option("--shapes", w4->shapes, "Weight shapes KxN")->delimiter(',');
  w4a16->add_option("--ms", w4->ms, "Batch rows M")->delimiter(',');
  w4a16
      ->add_option("--forms", w4->forms,
                   "W4A16 forms to time: auto (vt's choice), spread, stack (M <= 8), tile, dequant (bf16 weights, cuBLAS)")
      ->delimiter(',')
      ->check(CLI::IsMember({"auto", "spread", "stack", "tile", "dequant"}));
  w4a16->add_option("--tile-slices", w4->tile_slices, "Also time the tiled form split into these many K slices")
      ->delimiter(',')
      ->check(CLI::Range(1, 64));
  w4a16->add_option("--stack-slices", w4->stack_slices, "Also time the stacked form (M <= 8) split into these many K slices")
      ->delimiter(',')
      ->check(CLI::Range(1, 64));
  w4a16->add_flag("--dependent-launch", w4->dependent_launch,
                  "Launch vt's W4A16 kernels as programmatic dependent launches (as decode steps of up to eight rows run)");
  w4a16->add_option("--launches", w4->launches_per_graph, "Calls captured per CUDA graph");
  w4a16->add_option("--reps", w4->repetitions, "Graph replays (the median is reported)");
  w4a16->add_flag("--json", w4->json, "Print JSON instead of a table");
  auto dense = std::make_shared<kernels::cuda::DenseGemmBenchOptions>();
  gemm->add_option("--shapes", dense->shapes, "Weight shapes KxN")->delimiter(',');
  gemm->add_option("--ms", dense->ms, "Batch rows M")->delimiter(',')->check(CLI::PositiveNumber);
  gemm->add_option("--splits", dense->batch_splits, "Also time the batch-decode kernel at these K splits (1,2,4,8)")
      ->delimiter(',')
      ->check(CLI::IsMember({1, 2, 4, 8}));
  gemm->add_flag("--dependent-launch", dense->dependent_launch,
                 "Launch vt's kernels as programmatic dependent launches (as decode steps of up to eight rows run)");
  gemm->add_option("--launches", dense->launches_per_graph, "Calls captured per CUDA graph");
  gemm->add_option("--reps", dense->repetitions, "Graph replays (the median is reported)");
  gemm->add_flag("--json", dense->json, "Print JSON instead of a table");
  auto options = std::make_shared<kernels::cuda::AttentionBenchOptions>();
  attention->add_option("--arms", options->arms, "Arms to time: block, warp, warp2, gqa, persist, solo")->delimiter(',');
  attention->add_option("--split", options->split, "Split-KV: off, auto or a chunk length in tokens");
  attention->add_option("--batches", options->batches, "Batch sizes")->delimiter(',');
  attention->add_option("--contexts", options->contexts, "Context lengths")->delimiter(',');
  attention->add_option("--shapes", options->shapes,
                        "Model shapes: qwen3-1.7b, llama3-8b, qwen3-32b, d256-16q2kv, gemma3-d256-8q4kv, mqa-d128-8q1kv")
      ->delimiter(',');
  attention->add_option("--pages", options->pages, "Block tables: shuffled pages, or each request's pages in order")
      ->check(CLI::IsMember({"shuffled", "in-order"}))
      ->capture_default_str();
  attention->add_flag("--dependent-launch", options->dependent_launch,
                      "Launch every kernel of a call as a programmatic dependent launch (as decode steps of up to "
                      "four rows run)");
  attention->add_option("--launches", options->launches_per_graph, "Calls captured per CUDA graph");
  attention->add_option("--reps", options->repetitions, "Graph replays (the median is reported)");
  attention->add_flag("--json", options->json, "Print JSON instead of a table");
  auto pre = std::make_shared<kernels::cuda::PrefillBenchOptions>();
  prefill->add_option("--shapes", pre->shapes, "Model shapes, as for `vt bench attention`")->delimiter(',');
  prefill->add_option("--lengths", pre->lengths, "Prompt lengths (each also the chunk case's context)")->delimiter(',');
  prefill->add_option("--chunk", pre->chunk, "Tokens of the chunk case; 0 skips it")->capture_default_str();
  prefill->add_option("--mma", pre->mmas, "The kernels' MMAs, each timed: auto (warpgroup MMAs where they run), warp")
      ->delimiter(',')
      ->check(CLI::IsMember({"auto", "warp"}));
  prefill->add_option("--reps", pre->repetitions, "Graph replays (the median is reported)");
  prefill->add_flag("--json", pre->json, "Print JSON instead of a table");
  return {app, [decode, decode_options, grammar, grammar_options, serve, serve_options, attention, options, prefill,
                pre, w4, gemm, dense] {
    if (decode->parsed()) return RunDecode(*decode_options);
    if (grammar->parsed()) return RunGrammar(*grammar_options);
    if (serve->parsed()) return RunServe(*serve_options);
    if (attention->parsed()) return kernels::cuda::RunAttentionBench(*options);
    if (prefill->parsed()) return kernels::cuda::RunPrefillBench(*pre);
    if (gemm->parsed()) return kernels::cuda::RunDenseGemmBench(*dense);
    return kernels::cuda::RunW4A16Bench(*w4);
  }};
#else
  (void)attention;
  (void)w4a16;
  (void)gemm;
  (void)prefill;
  return {app, [app, decode, decode_options, grammar, grammar_options, serve, serve_options] {
    if (decode->parsed()) return RunDecode(*decode_options);
    if (grammar->parsed()) return RunGrammar(*grammar_options);
    if (serve->parsed()) return RunServe(*serve_options);
    std::fprintf(stderr, "vt bench %s: this vt was built without CUDA (VT_CUDA=OFF or no nvcc)\n",
                 app->get_subcommands().front()->get_name().c_str());
    return 1;
  }};
#endif
}

}  // namespace vt::cli
