// `vt bench prefill-attention`: times the tensor-core prefill attention on the shapes of real
// models, one prompt per call (causal over the whole prompt, as a c = 1 TTFT step computes it) and
// a 512-token chunk at the end of a long context (a prompt chunk beside running decodes, the split
// path), with CUDA graphs so launch cost drops out. Reports TFLOP/s of the causal work; the
// PyTorch SDPA anchor of the same shapes is tools/sdpa_prefill_anchor.py, run in the same job.
#pragma once

#include <string>
#include <vector>

namespace vt::kernels::cuda {

struct PrefillBenchOptions {
  std::vector<std::string> shapes = {"qwen3-1.7b", "llama3-8b"};  // names as in `vt bench attention`
  std::vector<int> lengths = {2048, 8192, 32768};                  // prompt (context) lengths
  int chunk = 512;  // tokens of the chunk case; 0 skips it
  // The kernels' MMAs, each timed at every point: "auto" (warpgroup MMAs where they run) and/or
  // "warp" (VT_ATTN_PREFILL_MMA's values).
  std::vector<std::string> mmas = {"auto"};
  int repetitions = 5;
  bool json = false;
};

// Runs the benchmark and prints the table (or JSON); returns the process exit code.
int RunPrefillBench(const PrefillBenchOptions& options);

}  // namespace vt::kernels::cuda
