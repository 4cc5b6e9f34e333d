// `--tensor-parallel-size N --backend cuda`: one CudaModelRunner per GPU (rank r on device r) over
// ShardModel's slices, joined by NCCL (all-reduce after o_proj and down_proj and of the
// vocabulary-parallel embedding, all-gather of the head's vocabulary slices, all captured in each
// rank's decode graphs), driven in step by a TensorParallelRunner: one process, one thread per GPU.
//
// Written and compiled without a two-GPU machine (issue #19): the NCCL group's own tests passed on
// one H200, the sharded math on the CPU; this path has not yet run on a GPU. Known limits: the
// ranks' pools count as the smallest of them, a rank failing alone while the graphs are captured
// or during a step leaves the others waiting in NCCL (start-up before that runs no collective), and
// steps bring the whole logits to the host (per-rank device sampling is not wired through yet).
#pragma once

#include <memory>

#include "base/status.h"
#include "engine/backends/cuda/cuda_model_runner.h"
#include "engine/exec/model_runner.h"
#include "engine/loader/model_source.h"

namespace vt {

// `size` ranks of `loaded` (CheckTensorParallel's errors; GPTQ is refused there), `options` per rank.
Result<std::unique_ptr<ModelRunner>> CreateCudaTensorParallelRunner(const LoadedModel& loaded, int size,
                                                                    const CudaRunnerOptions& options);

}  // namespace vt
