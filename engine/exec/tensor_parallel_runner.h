// Tensor parallelism at the engine's level: one ModelRunner per rank, each holding its shard of the
// weights and its own KV cache (sharded by KV head, the same block ids on every rank), all running
// every step together. Rank 0 runs on the engine's thread and every other rank on a thread of its
// own that this runner keeps (one thread per rank and per device, never a process per rank: the
// engine's step loop stays one loop and needs no launcher). Every rank gathers the whole logits
// (engine/parallel/collective.h), so rank 0's rows are the step's result.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/status.h"
#include "engine/config/model_config.h"
#include "engine/exec/model_runner.h"

namespace vt {

class TensorParallelRunner final : public ModelRunner {
 public:
  // Whether the ranks' memory bandwidths add up (one GPU each) or are one memory they share (CPU
  // threads): the copy bandwidth a weights roofline divides by.
  enum class Bandwidth { kShared, kPerRank };

  // `ranks[r]` computes rank r of the model `whole` (ShardModel's slices); `keep_alive` holds what the
  // ranks use and do not own (their collectives), released after them.
  static Result<std::unique_ptr<TensorParallelRunner>> Create(ModelConfig whole,
                                                              std::vector<std::unique_ptr<ModelRunner>> ranks,
                                                              std::shared_ptr<void> keep_alive = nullptr,
                                                              Bandwidth bandwidth = Bandwidth::kShared);
  ~TensorParallelRunner() override;

  const ModelConfig& config() const override { return whole_; }
  std::string backend() const override { return ranks_[0]->backend(); }
  uint64_t weight_bytes() const override;  // summed over the ranks
  int32_t kv_element_bytes() const override { return ranks_[0]->kv_element_bytes(); }
  int32_t num_kv_blocks() const override;  // the fewest of any rank: those ids are valid in every pool
  int32_t kv_block_size() const override { return ranks_[0]->kv_block_size(); }
  int32_t max_num_seqs() const override { return ranks_[0]->max_num_seqs(); }
  int64_t max_num_batched_tokens() const override { return ranks_[0]->max_num_batched_tokens(); }
  int64_t max_model_len() const override { return ranks_[0]->max_model_len(); }
  int tensor_parallel_size() const { return static_cast<int>(ranks_.size()); }

  Status Forward(const std::vector<ForwardSeq>& batch, std::vector<float>* logits) override;
  Result<double> MeasureCopyBandwidth() override;
  Result<double> MeasureMatmulPeak() override { return ranks_[0]->MeasureMatmulPeak(); }

 private:
  // A rank's thread: runs the step it is handed and reports when done.
  class RankThread {
   public:
    RankThread();
    ~RankThread();
    void Start(std::function<Status()> step);
    Status Wait();

   private:
    std::mutex mu_;
    std::condition_variable cv_;
    std::function<Status()> step_;
    bool has_step_ = false, done_ = false, stop_ = false;
    Status result_;
    std::thread thread_;
  };

  TensorParallelRunner(ModelConfig whole, std::vector<std::unique_ptr<ModelRunner>> ranks,
                       std::shared_ptr<void> keep_alive, Bandwidth bandwidth);

  ModelConfig whole_;
  Bandwidth bandwidth_;
  std::vector<std::unique_ptr<ModelRunner>> ranks_;
  std::shared_ptr<void> keep_alive_;  // released after the ranks (~TensorParallelRunner)
  std::vector<std::unique_ptr<RankThread>> threads_;  // ranks 1..size-1
  std::vector<std::vector<float>> scratch_logits_;    // ranks 1..size-1: their copies of the rows
};

}  // namespace vt
