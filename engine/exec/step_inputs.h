// The per-step inputs of a device forward (token ids, positions, KV slots, per-token sequence and
// context, block tables), staged in one host buffer laid out exactly like its device copy, so a
// step moves them in one copy. Plain C++: the staging, the padding to a graph's batch size and the
// checks that keep bad input from becoming out-of-bounds device writes are tested without a GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/status.h"
#include "engine/exec/forward_batch.h"

namespace vt {

struct StepCapacity {
  int max_tokens = 0;          // tokens in one step, padding included
  int max_seqs = 0;            // sequences in one step, padding included
  int max_blocks_per_seq = 0;  // the block-table row stride
  int block_size = 0;
  int32_t num_blocks = 0;      // the KV pool's size: valid block ids are [0, num_blocks)
  int64_t vocab_size = 0;
};

// What one staged step came to.
struct StagedStep {
  int tokens = 0;       // of the batch, before any padding
  int rows = 0;         // sequences that want logits
  int max_context = 0;  // the longest sequence after this step
  bool decode_only = false;  // one token per sequence, every one sampling: a decode graph can run it
  int leading_single_tokens = 0;  // tokens of the one-token sequences the step starts with (its decodes)
};

class StepInputs {
 public:
  // Byte offsets of the arrays in the buffer; the block tables come last, so a step can copy only
  // the rows it uses.
  struct Layout {
    size_t slots = 0;         // int64 [max_tokens]: page * block_size + offset; -1 writes nothing
    size_t token_ids = 0;     // int32 [max_tokens]
    size_t positions = 0;     // int32 [max_tokens]
    size_t seq_of_token = 0;  // int32 [max_tokens]: the block-table row of each token
    size_t context_lens = 0;  // int32 [max_tokens]: position + 1
    size_t block_tables = 0;  // int32 [max_seqs, max_blocks_per_seq]
    size_t bytes = 0;
  };

  explicit StepInputs(const StepCapacity& capacity);

  const Layout& layout() const { return layout_; }
  // Bytes from the start of the buffer through block-table row `rows`: what a step must copy.
  size_t BytesThroughTableRow(int rows) const;

  // Block ids Stage accepts are [0, num_blocks); the layout does not depend on it.
  void set_num_blocks(int32_t num_blocks) { capacity_.num_blocks = num_blocks; }

  // The host buffer of layout().bytes the staging writes into (pinned memory, in the CUDA runner).
  void Bind(unsigned char* host) { host_ = host; }

  // Lays out `batch`; errors for anything the device must not see: more than the capacity, empty
  // sequences, negative positions, token ids outside the vocabulary, block ids outside the pool,
  // positions without a block.
  Status Stage(const std::vector<ForwardSeq>& batch, StagedStep* staged);
  // Rows [from, to) become padding: token 0 at position 0 over page 0 of its own table row, with
  // its K/V write skipped; its outputs are never read.
  Status Pad(int from, int to);

  template <typename T>
  T* At(size_t offset) const {
    return reinterpret_cast<T*>(host_ + offset);
  }

 private:
  StepCapacity capacity_;
  Layout layout_;
  unsigned char* host_ = nullptr;
};

}  // namespace vt
