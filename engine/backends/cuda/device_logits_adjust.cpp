// Penalties, logit_bias and min_tokens where the logits are: the engine's planned lists
// (engine/sample/logits_adjust.h) staged into pinned memory and copied once per step, then
// AdjustLogitsRows after the forward (and after its graph, when a graph ran it).
#include <algorithm>
#include <string>

#include "engine/backends/cuda/cuda_runner.h"

namespace vt::cuda_backend {

namespace {

bool Adjusts(const RowDraw& d) { return d.adjust != nullptr && !d.adjust->empty(); }

// Row `row` of the staging: its lists appended to the pool from `at` on.
void StageRow(const LogitsAdjustment& a, kc::AdjustEntry* entries, int32_t at, kc::RowAdjust* row) {
  row->repetition_penalty = a.repetition_penalty;
  row->frequency_penalty = a.frequency_penalty;
  row->presence_penalty = a.presence_penalty;
  row->masked = at;
  for (int32_t id : a.masked) entries[at++] = {id, 0.0f};
  row->bias = at;
  for (const auto& [id, bias] : a.bias) entries[at++] = {id, bias};
  row->repeated = at;
  for (int32_t id : a.repeated) entries[at++] = {id, 0.0f};
  row->counted = at;
  for (const auto& [id, count] : a.counted) entries[at++] = {id, count};
  row->end = at;
}

}  // namespace

Result<bool> CudaModelRunner::AdjustRows(const std::vector<RowDraw>& draws) {
  if (std::none_of(draws.begin(), draws.end(), Adjusts)) return false;
  const int vocab = int(config_.vocab_size);
  auto* rows = adjust_host_.as<kc::RowAdjust>();
  auto* entries = reinterpret_cast<kc::AdjustEntry*>(rows + max_seqs_);
  const auto* rows_dev = reinterpret_cast<const kc::RowAdjust*>(adjust_dev_);
  const auto* entries_dev = reinterpret_cast<const kc::AdjustEntry*>(rows_dev + max_seqs_);
  // Normally one group, one copy: the pool is sized for a step of rows (memory_plan.cpp). A step
  // past it goes in groups that each fit, waiting for a group's copy before the next overwrites
  // the pool.
  size_t first = 0;
  while (first < draws.size()) {
    // The last group's copy reads the pool until it is done: wait before writing over it.
    if (first > 0) {
      VT_RETURN_IF_ERROR(CudaCheck(cudaStreamSynchronize(stream_), "adjusting logits"));
    }
    size_t used = 0, last = first;
    for (; last < draws.size(); ++last) {
      const size_t n = Adjusts(draws[last]) ? draws[last].adjust->entries() : 0;
      if (used + n > adjust_entries_) break;
      rows[last - first] = {};
      if (n > 0) StageRow(*draws[last].adjust, entries, int32_t(used), &rows[last - first]);
      used += n;
    }
    if (last == first) {
      return ResourceExhausted("cuda sampling: row " + std::to_string(first) + "'s penalties and biases hold " +
                               std::to_string(draws[first].adjust->entries()) + " token entries, more than the " +
                               std::to_string(adjust_entries_) + " the runner stages (sized from --max-model-len)");
    }
    VT_RETURN_IF_ERROR(CudaCheck(cudaMemcpyAsync(adjust_dev_, rows,
                                                 size_t(max_seqs_) * sizeof(kc::RowAdjust) +
                                                     used * sizeof(kc::AdjustEntry),
                                                 cudaMemcpyHostToDevice, stream_),
                                 "copying logits adjustments"));
    VT_RETURN_IF_ERROR(kc::AdjustLogitsRows(logits_dev_ + first * size_t(vocab), int(last - first), vocab, rows_dev,
                                            entries_dev, adjusted_logits_ + first * size_t(vocab), stream_));
    first = last;
  }
  return true;
}

}  // namespace vt::cuda_backend
