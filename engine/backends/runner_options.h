// Every VT_* setting of the backends, parsed once at start-up into typed fields that are passed
// down. Nothing below this parser reads the environment: the runners and the kernels take these
// as parameters (the same-binary A/B of `vt bench decode --ab` sets them in a child's environment).
#pragma once

#include <functional>

#include "base/status.h"
#include "kernels/cuda/attention/decode_plan.h"

namespace vt {

struct RunnerOptions {
  int num_threads = 0;  // VT_NUM_THREADS: the CPU backend's threads; 0 = one per hardware thread
  // VT_ATTN_DECODE (block|warp|warp2|gqa|persist|solo|auto) and VT_ATTN_SPLIT (off|auto|tokens): the decode arm
  // and the split-KV policy; the defaults are what users get.
  kernels::cuda::DecodeOverrides attention{kernels::cuda::DecodeArm::kAuto, kernels::cuda::kSplitAuto};
  bool tensor_core_prefill = true;  // VT_ATTN_PREFILL=tc|decode
  // VT_ATTN_PREFILL_MMA=auto|warp: the tensor-core prefill on Hopper's warpgroup MMAs where they run
  // (sm_90, head_dim 128), or on warp MMAs everywhere.
  bool warpgroup_prefill = true;
  bool cuda_graphs = true;          // VT_CUDA_GRAPHS=1|0: decode steps replay captured graphs
  bool skinny_dense_gemm = true;    // VT_DENSE_GEMM=auto|cublas: vt's skinny GEMM for small M
  // VT_DENSE_GEMM_MID=batch|cublas: vt's batch-decode GEMM for M 9-64. Off by default: on an H200 it
  // is slower than cuBLAS at most of these shapes (docs/BENCHMARKS.md, "Batch-decode GEMM").
  bool batch_dense_gemm = false;
  // VT_W4A16_FORM=auto|spread: the int4 GEMM's forms by M (stacked at M <= 2, tiled from 9), or the
  // spread form of issue #9 at every M the int4 kernels run (see VT_W4A16_LARGE).
  bool chosen_w4a16_forms = true;
  // VT_W4A16_LARGE=dequant|kernel: int4 layers of steps with kW4A16DequantMinRows rows or more
  // (prefill chunks, and decode batches that large) dequantise their weights into a bf16 scratch and
  // run the bf16 GEMM, or stay on the int4 kernels.
  bool dequantised_large_w4a16 = true;
  bool dependent_launch = true;     // VT_PDL=1|0: programmatic dependent launch (sm_90+)
  // VT_DECODE_MLP=fused|ops: a decode step's MLP (steps of up to eight rows, bf16 weights) as one
  // resident kernel with a grid barrier (kernels/cuda/ops/decode_mlp.h), or as its three kernels.
  // Off by default: the same bits, but 6-11% slower end to end on an H100 (docs/BENCHMARKS.md, "The
  // decode MLP as one resident kernel").
  bool fused_decode_mlp = false;
};

// Looks a setting up by name; nullptr when it is unset.
using SettingLookup = std::function<const char*(const char*)>;

// Errors name the setting and its bad value.
Result<RunnerOptions> ParseRunnerOptions(const SettingLookup& lookup);

// ParseRunnerOptions over the process environment: called once, by the CLI.
Result<RunnerOptions> RunnerOptionsFromEnvironment();

}  // namespace vt
