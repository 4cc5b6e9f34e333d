// `vt bench w4a16`: the W4A16 GEMM against cuBLAS bf16 on the same shapes in the same run,
// both CUDA-graph timed with weights rotated past the L2, next to the copy ceiling.
#pragma once

#include <string>
#include <vector>

namespace vt::kernels::cuda {

struct W4A16BenchOptions {
  std::vector<std::string> shapes = {"4096x4096", "4096x14336", "14336x4096", "8192x8192", "8192x28672"};
  std::vector<int> ms = {1, 2, 4, 8, 16, 32, 64};
  std::vector<std::string> forms = {"auto"};  // auto (vt's choice), spread, stack (M <= 8), tile, dequant
  std::vector<int> tile_slices;               // also the tiled form split into these many K slices
  std::vector<int> stack_slices;              // also the stacked form (M <= 8) split into these many K slices
  // vt's W4A16 kernels launched as programmatic dependent launches, as decode steps of up to eight rows
  // run them (the next call's first weight loads overlap this call); cuBLAS launches plainly either way.
  bool dependent_launch = false;
  int launches_per_graph = 20;
  int repetitions = 15;
  bool json = false;
};

int RunW4A16Bench(const W4A16BenchOptions& options);

}  // namespace vt::kernels::cuda
