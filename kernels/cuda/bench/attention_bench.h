// `vt bench attention`: times every paged decode-attention arm on the shapes of real
// models with CUDA graphs (so launch cost drops out), next to the device's copy
// bandwidth measured in the same run.
#pragma once

#include <string>
#include <vector>

namespace vt::kernels::cuda {

struct AttentionBenchOptions {
  std::vector<std::string> arms = {"block", "warp", "warp2", "gqa", "persist", "solo"};
  std::string split = "auto";             // off | auto | tokens
  std::vector<int> batches = {1, 8, 64};
  std::vector<int> contexts = {1024, 4096, 16384};
  std::vector<std::string> shapes;        // empty = all; names like "llama3-8b"
  // Page order of each request's block table: "shuffled" (pages anywhere in the cache, as after long
  // serving) or "in-order" (a request's pages consecutive, as a fresh engine allocates them).
  std::string pages = "shuffled";
  // Every kernel of a call launched as a programmatic dependent launch, as the engine launches its
  // decode steps of up to four rows (dependent_launch.h); off times the calls as larger steps run.
  bool dependent_launch = false;
  int launches_per_graph = 20;
  int repetitions = 15;
  bool json = false;
};

// Runs the benchmark and prints the table (or JSON); returns the process exit code.
int RunAttentionBench(const AttentionBenchOptions& options);

}  // namespace vt::kernels::cuda
