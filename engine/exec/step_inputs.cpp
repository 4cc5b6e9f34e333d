#include "engine/exec/step_inputs.h"

#include <algorithm>
#include <string>

#include "kernels/device_alignment.h"

namespace vt {

StepInputs::StepInputs(const StepCapacity& capacity) : capacity_(capacity) {
  const size_t t = size_t(capacity.max_tokens);
  size_t at = 0;
  auto reserve = [&at](size_t bytes) {
    const size_t start = at;
    at += kernels::AlignToDevice(bytes);
    return start;
  };
  layout_.slots = reserve(t * 8);
  layout_.token_ids = reserve(t * 4);
  layout_.positions = reserve(t * 4);
  layout_.seq_of_token = reserve(t * 4);
  layout_.context_lens = reserve(t * 4);
  layout_.block_tables = reserve(size_t(capacity.max_seqs) * capacity.max_blocks_per_seq * 4);
  layout_.bytes = at;
}

size_t StepInputs::BytesThroughTableRow(int rows) const {
  return layout_.block_tables + size_t(rows) * capacity_.max_blocks_per_seq * 4;
}

Status StepInputs::Stage(const std::vector<ForwardSeq>& batch, StagedStep* staged) {
  const StepCapacity& cap = capacity_;
  auto* slots = At<int64_t>(layout_.slots);
  auto* ids = At<int32_t>(layout_.token_ids);
  auto* positions = At<int32_t>(layout_.positions);
  auto* seq_of_token = At<int32_t>(layout_.seq_of_token);
  auto* contexts = At<int32_t>(layout_.context_lens);
  auto* tables = At<int32_t>(layout_.block_tables);
  if (int64_t(batch.size()) > cap.max_seqs) {
    return InvalidArgument("step: " + std::to_string(batch.size()) + " sequences; sized for " +
                           std::to_string(cap.max_seqs));
  }
  *staged = StagedStep{};
  staged->decode_only = !batch.empty();
  int t = 0;
  for (size_t s = 0; s < batch.size(); ++s) {
    const ForwardSeq& seq = batch[s];
    if (seq.num_tokens < 1 || seq.start_pos < 0) {
      return InvalidArgument("step: sequence " + std::to_string(s) + " has " + std::to_string(seq.num_tokens) +
                             " tokens from position " + std::to_string(seq.start_pos));
    }
    if (t + seq.num_tokens > cap.max_tokens) {
      return InvalidArgument("step: more than " + std::to_string(cap.max_tokens) + " tokens");
    }
    if (seq.num_blocks > cap.max_blocks_per_seq) {
      return InvalidArgument("step: a sequence spans " + std::to_string(seq.num_blocks) + " KV blocks; sized for " +
                             std::to_string(cap.max_blocks_per_seq));
    }
    // Entries past num_blocks are never read (attention stops at the context), so they are left.
    for (int64_t j = 0; j < seq.num_blocks; ++j) {
      const int32_t block = seq.block_table[j];
      if (block < 0 || block >= cap.num_blocks) {
        return InvalidArgument("step: KV block " + std::to_string(block) + " is outside the pool of " +
                               std::to_string(cap.num_blocks));
      }
      tables[s * cap.max_blocks_per_seq + j] = block;
    }
    for (int64_t i = 0; i < seq.num_tokens; ++i, ++t) {
      const int64_t pos = seq.start_pos + i;
      const int64_t block = pos / cap.block_size;
      if (block >= seq.num_blocks) {
        return InvalidArgument("step: position " + std::to_string(pos) + " of sequence " + std::to_string(s) +
                               " has no KV block");
      }
      if (seq.tokens[i] < 0 || seq.tokens[i] >= cap.vocab_size) {
        return InvalidArgument("step: token id " + std::to_string(seq.tokens[i]) + " is outside the vocabulary");
      }
      ids[t] = seq.tokens[i];
      positions[t] = int32_t(pos);
      seq_of_token[t] = int32_t(s);
      contexts[t] = int32_t(pos + 1);
      slots[t] = int64_t(seq.block_table[block]) * cap.block_size + pos % cap.block_size;
    }
    staged->max_context = std::max<int>(staged->max_context, int(seq.start_pos + seq.num_tokens));
    staged->rows += seq.want_logits ? 1 : 0;
    staged->decode_only = staged->decode_only && seq.num_tokens == 1 && seq.want_logits;
    if (staged->leading_single_tokens == t - 1 && seq.num_tokens == 1) staged->leading_single_tokens = t;
  }
  staged->tokens = t;
  return Status::Ok();
}

Status StepInputs::Pad(int from, int to) {
  if (from < 0 || to > capacity_.max_seqs || to > capacity_.max_tokens) {
    return InvalidArgument("step: padding rows [" + std::to_string(from) + ", " + std::to_string(to) +
                           ") past the sized batch");
  }
  auto* tables = At<int32_t>(layout_.block_tables);
  for (int r = from; r < to; ++r) {
    At<int32_t>(layout_.token_ids)[r] = 0;
    At<int32_t>(layout_.positions)[r] = 0;
    At<int32_t>(layout_.seq_of_token)[r] = r;
    At<int32_t>(layout_.context_lens)[r] = 1;
    At<int64_t>(layout_.slots)[r] = -1;
    tables[size_t(r) * capacity_.max_blocks_per_seq] = 0;  // context 1 reads entry 0 only
  }
  return Status::Ok();
}

}  // namespace vt
