// `vt bench`: benchmarks users compare against other engines. `attention` times the
// paged decode-attention arms on the GPU; decode and w4a16 come with the CUDA backend.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "engine/cli/commands.h"

#ifdef VT_HAVE_CUDA
#include "kernels/cuda/bench/attention_bench.h"
#endif

namespace vt::cli {

Command AddBenchCommand(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand("bench", "Benchmark decode, attention kernels and GEMMs");
  app->require_subcommand(1);
  CLI::App* attention = app->add_subcommand("attention", "Time the paged decode-attention arms (CUDA graphs)");
#ifdef VT_HAVE_CUDA
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
  return {app, [options] { return kernels::cuda::RunAttentionBench(*options); }};
#else
  (void)attention;
  return {app, [] {
    std::fprintf(stderr, "vt bench attention: this vt was built without CUDA (VT_CUDA=OFF or no nvcc)\n");
    return 1;
  }};
#endif
}

}  // namespace vt::cli
