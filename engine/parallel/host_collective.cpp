#include "engine/parallel/host_collective.h"

#include <algorithm>
#include <cstring>

namespace vt {

HostCollectiveGroup::HostCollectiveGroup(int size)
    : size_(size), barrier_(size), inputs_(static_cast<size_t>(size), nullptr) {}

HostCollective::HostCollective(std::shared_ptr<HostCollectiveGroup> group, int rank)
    : group_(std::move(group)), rank_(rank) {}

void HostCollective::AllReduceSum(float* data, int64_t n) {
  HostCollectiveGroup& g = *group_;
  g.inputs_[static_cast<size_t>(rank_)] = data;
  if (rank_ == 0) g.sum_.assign(static_cast<size_t>(n), 0.0f);
  g.barrier_.arrive_and_wait();  // every input published, the sum sized
  // Each rank reduces its own chunk, always adding rank 0, 1, ... in order: every rank gets the
  // same bits whatever the thread timing.
  const int64_t chunk = (n + g.size_ - 1) / g.size_;
  const int64_t begin = std::min(n, rank_ * chunk), end = std::min(n, begin + chunk);
  for (int r = 0; r < g.size_; ++r) {
    const float* in = g.inputs_[static_cast<size_t>(r)];
    for (int64_t i = begin; i < end; ++i) g.sum_[static_cast<size_t>(i)] += in[i];
  }
  g.barrier_.arrive_and_wait();  // every chunk summed; no rank has overwritten its input yet
  std::memcpy(data, g.sum_.data(), static_cast<size_t>(n) * sizeof(float));
  g.barrier_.arrive_and_wait();  // every rank has its copy before the sum is reused
}

void HostCollective::AllGatherColumns(const float* in, int64_t rows, int64_t width, float* out) {
  HostCollectiveGroup& g = *group_;
  g.inputs_[static_cast<size_t>(rank_)] = in;
  g.barrier_.arrive_and_wait();
  const int64_t full = width * g.size_;
  for (int r = 0; r < g.size_; ++r) {
    const float* block = g.inputs_[static_cast<size_t>(r)];
    for (int64_t row = 0; row < rows; ++row) {
      std::memcpy(out + row * full + r * width, block + row * width, static_cast<size_t>(width) * sizeof(float));
    }
  }
  g.barrier_.arrive_and_wait();  // no rank changes its input while another still reads it
}

}  // namespace vt
