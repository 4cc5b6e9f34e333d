#include "engine/exec/tensor_parallel_runner.h"

#include <algorithm>
#include <exception>
#include <string>
#include <utility>

namespace vt {

TensorParallelRunner::RankThread::RankThread() {
  thread_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      cv_.wait(lock, [this] { return has_step_ || stop_; });
      if (stop_) return;
      has_step_ = false;
      std::function<Status()> step = std::move(step_);
      lock.unlock();
      Status result;
      try {
        result = step();
      } catch (const std::exception& e) {  // a thread must not end the process; the step fails instead
        result = Internal(std::string("tensor-parallel rank: ") + e.what());
      }
      lock.lock();
      result_ = std::move(result);
      done_ = true;
      cv_.notify_all();
    }
  });
}

TensorParallelRunner::RankThread::~RankThread() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void TensorParallelRunner::RankThread::Start(std::function<Status()> step) {
  std::lock_guard<std::mutex> lock(mu_);
  step_ = std::move(step);
  has_step_ = true;
  done_ = false;
  cv_.notify_all();
}

Status TensorParallelRunner::RankThread::Wait() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return done_; });
  return result_;
}

Result<std::unique_ptr<TensorParallelRunner>> TensorParallelRunner::Create(
    ModelConfig whole, std::vector<std::unique_ptr<ModelRunner>> ranks, std::shared_ptr<void> keep_alive,
    Bandwidth bandwidth) {
  if (ranks.empty()) return InvalidArgument("tensor parallelism: no ranks");
  for (const auto& r : ranks) {
    if (r == nullptr) return InvalidArgument("tensor parallelism: a rank without a runner");
    // The engine hands out one set of block ids and one step size for every rank (each rank's pool is
    // sized by its own device's free memory: the smallest one counts, see num_kv_blocks).
    if (r->kv_block_size() != ranks[0]->kv_block_size() ||
        r->max_num_seqs() != ranks[0]->max_num_seqs() ||
        r->max_num_batched_tokens() != ranks[0]->max_num_batched_tokens()) {
      return Internal("tensor parallelism: the ranks' KV block sizes or step limits differ");
    }
  }
  return std::unique_ptr<TensorParallelRunner>(
      new TensorParallelRunner(std::move(whole), std::move(ranks), std::move(keep_alive), bandwidth));
}

TensorParallelRunner::TensorParallelRunner(ModelConfig whole, std::vector<std::unique_ptr<ModelRunner>> ranks,
                                           std::shared_ptr<void> keep_alive, Bandwidth bandwidth)
    : whole_(std::move(whole)), bandwidth_(bandwidth), ranks_(std::move(ranks)), keep_alive_(std::move(keep_alive)) {
  for (size_t r = 1; r < ranks_.size(); ++r) threads_.push_back(std::make_unique<RankThread>());
  scratch_logits_.resize(ranks_.size() - 1);
}

// The threads stop before the ranks they drive go, and the ranks before what they borrow.
TensorParallelRunner::~TensorParallelRunner() {
  threads_.clear();
  ranks_.clear();
}

// Rank 0's, times the ranks where each has its own memory (identical devices assumed).
Result<double> TensorParallelRunner::MeasureCopyBandwidth() {
  Result<double> one = ranks_[0]->MeasureCopyBandwidth();
  if (!one.ok() || bandwidth_ == Bandwidth::kShared) return one;
  return *one * static_cast<double>(ranks_.size());
}

int32_t TensorParallelRunner::num_kv_blocks() const {
  int32_t fewest = ranks_[0]->num_kv_blocks();
  for (const auto& r : ranks_) fewest = std::min(fewest, r->num_kv_blocks());
  return fewest;
}

uint64_t TensorParallelRunner::weight_bytes() const {
  uint64_t sum = 0;
  for (const auto& r : ranks_) sum += r->weight_bytes();
  return sum;
}

// Every rank takes the same batch (the same block ids into its own pool); all must run, since each
// waits for the others in its collectives, and a rank's error is the step's error. A rank that failed
// alone before a collective would leave the others waiting in it (host barriers cannot be aborted):
// the CPU ranks' errors all come before their first collective and depend only on the batch, the
// same on every rank, so they fail together; a device backend's ranks will need an abort.
Status TensorParallelRunner::Forward(const std::vector<ForwardSeq>& batch, std::vector<float>* logits) {
  for (size_t r = 1; r < ranks_.size(); ++r) {
    threads_[r - 1]->Start([this, r, &batch] { return ranks_[r]->Forward(batch, &scratch_logits_[r - 1]); });
  }
  Status first = ranks_[0]->Forward(batch, logits);
  if (!first.ok()) first = Status(first.code(), "rank 0: " + first.message());
  for (size_t r = 1; r < ranks_.size(); ++r) {
    Status s = threads_[r - 1]->Wait();
    if (first.ok() && !s.ok()) first = Status(s.code(), "rank " + std::to_string(r) + ": " + s.message());
  }
  return first;
}

}  // namespace vt
