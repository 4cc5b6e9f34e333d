// `vt bench gemm`: the bf16 linear layers of a decode step through vt's kernels (DenseGemm: the
// skinny kernel at M <= 8, the batch-decode kernel at 9 <= M <= 64, which the engine runs only with
// VT_DENSE_GEMM_MID=batch) against cuBLAS on the same weights, same layout
// (HF nn.Linear, W[N, K]) and same run, CUDA-graph timed with weights rotated past the L2, next to
// the copy ceiling.
#pragma once

#include <string>
#include <vector>

namespace vt::kernels::cuda {

struct DenseGemmBenchOptions {
  // K x N of the qwen3-1.7b and llama3-8b layers: QKV, o, gate+up, down.
  std::vector<std::string> shapes = {"2048x4096", "2048x2048", "2048x12288", "6144x2048",
                                     "4096x6144", "4096x4096", "4096x28672", "14336x4096"};
  std::vector<int> ms = {1, 8, 16, 32, 48, 64};
  // When set, also time the batch-decode kernel at each of these K split counts (M >= 9), so a change
  // of BatchLinearSplits' rule can be measured first.
  std::vector<int> batch_splits;
  // Every vt kernel launched dependently (as decode steps of up to eight rows run), so each call of a
  // graph may start while the one before it finishes.
  bool dependent_launch = false;
  int launches_per_graph = 20;
  int repetitions = 15;
  bool json = false;
};

int RunDenseGemmBench(const DenseGemmBenchOptions& options);

}  // namespace vt::kernels::cuda
