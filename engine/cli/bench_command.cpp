// `vt bench`: benchmarks users compare against other engines. `attention` times the
// paged decode-attention arms, `w4a16` the int4 GEMM against cuBLAS; `decode` comes with the
// CUDA backend.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "engine/cli/commands.h"

#ifdef VT_HAVE_CUDA
#include "kernels/cuda/bench/attention_bench.h"
#include "kernels/cuda/bench/w4a16_bench.h"
#endif

namespace vt::cli {

Command AddBenchCommand(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand("bench", "Benchmark decode, attention kernels and GEMMs");
  app->require_subcommand(1);
  CLI::App* attention = app->add_subcommand("attention", "Time the paged decode-attention arms (CUDA graphs)");
  CLI::App* w4a16 = app->add_subcommand("w4a16", "Time the W4A16 GEMM against cuBLAS bf16 (CUDA graphs)");
#ifdef VT_HAVE_CUDA
  auto w4 = std::make_shared<kernels::cuda::W4A16BenchOptions>();
  w4a16->add_option("--shapes", w4->shapes, "Weight shapes KxN")->delimiter(',');
  w4a16->add_option("--ms", w4->ms, "Batch rows M")->delimiter(',');
  w4a16->add_option("--launches", w4->launches_per_graph, "Calls captured per CUDA graph");
  w4a16->add_option("--reps", w4->repetitions, "Graph replays (the median is reported)");
  w4a16->add_flag("--json", w4->json, "Print JSON instead of a table");
  auto options = std::make_shared<kernels::cuda::AttentionBenchOptions>();
  attention->add_option("--arms", options->arms, "Arms to time: block, warp, warp2, gqa")->delimiter(',');
  attention->add_option("--split", options->split, "Split-KV: off, auto or a chunk length in tokens");
  attention->add_option("--batches", options->batches, "Batch sizes")->delimiter(',');
  attention->add_option("--contexts", options->contexts, "Context lengths")->delimiter(',');
  attention->add_option("--shapes", options->shapes,
                        "Model shapes: qwen3-1.7b, llama3-8b, qwen3-32b, d256-16q2kv, gemma3-d256-8q4kv")
      ->delimiter(',');
  attention->add_option("--launches", options->launches_per_graph, "Calls captured per CUDA graph");
  attention->add_option("--reps", options->repetitions, "Graph replays (the median is reported)");
  attention->add_flag("--json", options->json, "Print JSON instead of a table");
  return {app, [attention, options, w4] {
    if (attention->parsed()) return kernels::cuda::RunAttentionBench(*options);
    return kernels::cuda::RunW4A16Bench(*w4);
  }};
#else
  (void)attention;
  (void)w4a16;
  return {app, [app] {
    std::fprintf(stderr, "vt bench %s: this vt was built without CUDA (VT_CUDA=OFF or no nvcc)\n",
                 app->get_subcommands().front()->get_name().c_str());
    return 1;
  }};
#endif
}

}  // namespace vt::cli
