// `--load-format dummy`: random weights of a config's real shapes, for
// benchmarks and tests without a checkpoint. Values depend only on the seed
// and the tensor, never on the thread count.
#pragma once

#include <cstdint>

#include "engine/config/model_config.h"
#include "engine/loader/model_weights.h"
#include "kernels/cpu/dtype.h"
#include "kernels/cpu/thread_pool.h"

namespace vt {

enum class DummyFill {
  kNow,        // every matrix generated at once (the CPU backend computes on them)
  kOnAcquire,  // each matrix generated when its residency Acquires it, and dropped on Release
};

// The values are the same either way: a device load sees exactly the weights the CPU would.
ModelWeights MakeDummyWeights(const ModelConfig& config, kernels::cpu::DType dtype, uint64_t seed,
                              kernels::cpu::ThreadPool& pool, DummyFill fill = DummyFill::kNow);

}  // namespace vt
