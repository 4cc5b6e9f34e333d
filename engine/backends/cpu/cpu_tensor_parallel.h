// `--tensor-parallel-size N` on the CPU backend: the reference of the sharded forward run by the
// engine itself. Each rank is a CpuModelRunner over ShardModel's slices (its own thread pool and KV
// cache), the ranks joined by host collectives; a TensorParallelRunner drives them in step. It is
// slower than one rank on the same cores: it exists so the sharded math, the per-rank KV caches and
// the lockstep driving that the CUDA backend's tensor parallelism needs are exercised end to end.
#pragma once

#include <memory>

#include "base/status.h"
#include "engine/exec/model_runner.h"
#include "engine/loader/model_source.h"

namespace vt {

// `size` ranks of `loaded` (CheckTensorParallel's errors when it does not divide the model), each on
// num_threads / size threads (at least one; num_threads 0: one per hardware thread) and with a pool
// of num_kv_blocks blocks of its KV heads.
Result<std::unique_ptr<ModelRunner>> CreateCpuTensorParallelRunner(LoadedModel loaded, int size, int num_threads,
                                                                   int32_t num_kv_blocks, int32_t block_size);

}  // namespace vt
