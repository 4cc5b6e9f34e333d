#include "engine/backends/cpu/cpu_tensor_parallel.h"

#include <algorithm>
#include <thread>
#include <utility>
#include <vector>

#include "engine/backends/cpu/cpu_model_runner.h"
#include "engine/exec/tensor_parallel_runner.h"
#include "engine/parallel/host_collective.h"
#include "engine/parallel/tensor_parallel.h"

namespace vt {
namespace {

// What the ranks borrow: the collectives they call, over one group.
struct HostCollectives {
  std::vector<std::unique_ptr<HostCollective>> per_rank;
};

}  // namespace

Result<std::unique_ptr<ModelRunner>> CreateCpuTensorParallelRunner(LoadedModel loaded, int size, int num_threads,
                                                                   int32_t num_kv_blocks, int32_t block_size) {
  VT_RETURN_IF_ERROR(CheckTensorParallel(loaded.config, size));
  const int threads = num_threads > 0 ? num_threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int per_rank = std::max(1, threads / size);
  auto group = std::make_shared<HostCollectiveGroup>(size);
  auto collectives = std::make_shared<HostCollectives>();
  std::vector<std::unique_ptr<ModelRunner>> ranks;
  for (int rank = 0; rank < size; ++rank) {
    Result<ShardedModel> shard = ShardModel(loaded.config, loaded.weights, rank, size);
    if (!shard.ok()) return shard.status();
    collectives->per_rank.push_back(std::make_unique<HostCollective>(group, rank));
    auto pool = std::make_unique<kernels::cpu::ThreadPool>(per_rank);
    auto model = std::make_unique<DecoderModel>(std::move(shard->config), std::move(shard->weights), pool.get(),
                                                TensorParallelRank{collectives->per_rank.back().get(), shard->shard});
    ranks.push_back(std::make_unique<CpuModelRunner>(std::move(pool), std::move(model), num_kv_blocks, block_size));
  }
  Result<std::unique_ptr<TensorParallelRunner>> runner =
      TensorParallelRunner::Create(std::move(loaded.config), std::move(ranks), std::move(collectives));
  if (!runner.ok()) return runner.status();
  return std::unique_ptr<ModelRunner>(std::move(*runner));
}

}  // namespace vt
