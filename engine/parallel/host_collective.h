// Collectives between the threads of one process, one thread per rank: the CPU reference of
// tensor parallelism runs its ranks this way, so the sharded math is tested without GPUs. Each
// call is a rendezvous of all ranks (every rank must make the same calls in the same order).
#pragma once

#include <barrier>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/parallel/collective.h"

namespace vt {

// State the ranks of one group share; make one, then a HostCollective per rank over it.
class HostCollectiveGroup {
 public:
  explicit HostCollectiveGroup(int size);
  int size() const { return size_; }

 private:
  friend class HostCollective;
  int size_;
  std::barrier<> barrier_;
  std::vector<const float*> inputs_;  // per rank, published for the current call
  std::vector<float> sum_;            // the reduced values, each rank filling its own chunk
};

class HostCollective final : public Collective {
 public:
  HostCollective(std::shared_ptr<HostCollectiveGroup> group, int rank);
  int rank() const override { return rank_; }
  int size() const override { return group_->size(); }
  void AllReduceSum(float* data, int64_t n) override;
  void AllGatherColumns(const float* in, int64_t rows, int64_t width, float* out) override;

 private:
  std::shared_ptr<HostCollectiveGroup> group_;
  int rank_;
};

}  // namespace vt
