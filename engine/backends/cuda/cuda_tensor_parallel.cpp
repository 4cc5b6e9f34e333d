#include "engine/backends/cuda/cuda_tensor_parallel.h"

#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "engine/backends/cuda/nccl_group.h"
#include "engine/exec/tensor_parallel_runner.h"
#include "engine/parallel/tensor_parallel.h"

namespace vt {
namespace {

Status OfRank(int rank, const Status& s) { return Status(s.code(), "rank " + std::to_string(rank) + ": " + s.message()); }

Result<std::unique_ptr<ModelRunner>> StartRanks(const LoadedModel& loaded, int size, const CudaRunnerOptions& options) {
  VT_RETURN_IF_ERROR(CheckTensorParallel(loaded.config, size));
  Result<std::unique_ptr<cuda_backend::NcclGroup>> made = cuda_backend::NcclGroup::Create(size);
  if (!made.ok()) return made.status();
  std::shared_ptr<cuda_backend::NcclGroup> group(std::move(*made));
  // Two phases, each with every rank at once on its own thread: start-up (weights, workspaces, KV
  // pool: no collective, so a rank that fails alone leaves no other waiting), then the decode graphs,
  // whose warm-ups run collectives that wait for every rank.
  std::vector<std::unique_ptr<ModelRunner>> ranks(static_cast<size_t>(size));
  std::vector<Status> failures(static_cast<size_t>(size));
  auto on_every_rank = [&](auto work) {
    std::vector<std::thread> threads;
    for (int rank = 0; rank < size; ++rank) threads.emplace_back(work, rank);
    for (std::thread& t : threads) t.join();
    for (const Status& s : failures) VT_RETURN_IF_ERROR(s);
    return Status::Ok();
  };
  VT_RETURN_IF_ERROR(on_every_rank([&](int rank) {
    const size_t r = static_cast<size_t>(rank);
    Result<ShardedModel> shard = ShardModel(loaded.config, loaded.weights, rank, size);
    if (!shard.ok()) {
      failures[r] = shard.status();
      return;
    }
    CudaRunnerOptions mine = options;
    mine.tp_group = group.get();
    mine.tp_rank = rank;
    mine.tp_shard = shard->shard;
    mine.defer_graphs = true;  // its start-up makes device `rank` current
    Result<std::unique_ptr<ModelRunner>> runner =
        CreateCudaModelRunner(shard->config, shard->weights, /*store=*/nullptr, mine);
    if (!runner.ok()) {
      failures[r] = OfRank(rank, runner.status());
      return;
    }
    ranks[r] = std::move(*runner);
  }));
  VT_RETURN_IF_ERROR(on_every_rank([&](int rank) {
    const size_t r = static_cast<size_t>(rank);
    const Status captured = CaptureDeferredGraphs(*ranks[r]);
    if (!captured.ok()) failures[r] = OfRank(rank, captured);
  }));
  Result<std::unique_ptr<TensorParallelRunner>> runner = TensorParallelRunner::Create(
      loaded.config, std::move(ranks), std::move(group), TensorParallelRunner::Bandwidth::kPerRank);
  if (!runner.ok()) return runner.status();
  return std::unique_ptr<ModelRunner>(std::move(*runner));
}

}  // namespace

Result<std::unique_ptr<ModelRunner>> CreateCudaTensorParallelRunner(const LoadedModel& loaded, int size,
                                                                    const CudaRunnerOptions& options) {
  Result<std::unique_ptr<ModelRunner>> runner = StartRanks(loaded, size, options);
  if (runner.ok()) return runner;
  return Status(runner.status().code(),
                "--backend cuda --tensor-parallel-size " + std::to_string(size) + ": " + runner.status().message());
}

}  // namespace vt
