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

ModelWeights MakeDummyWeights(const ModelConfig& config, kernels::cpu::DType dtype, uint64_t seed,
                              kernels::cpu::ThreadPool& pool);

}  // namespace vt
