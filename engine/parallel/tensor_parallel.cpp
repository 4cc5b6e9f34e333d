#include "engine/parallel/tensor_parallel.h"

#include <cstring>
#include <string>

namespace vt {
namespace {

using kernels::cpu::DTypeSize;
using kernels::cpu::WeightMatrix;

// Memory a shard owns (row-parallel slices are strided in the full matrix) beside the full
// model's storage, which the contiguous slices view.
struct ShardStorage {
  std::shared_ptr<const void> full;
  std::vector<std::vector<char>> copies;
};

// Rows [begin, begin + count): contiguous, a view.
WeightMatrix Rows(const WeightMatrix& w, int64_t begin, int64_t count) {
  WeightMatrix s = w;
  s.data = w.Row(begin);
  s.rows = count;
  return s;
}

// Columns [begin, begin + count) of every row: copied into `storage`.
WeightMatrix Columns(const WeightMatrix& w, int64_t begin, int64_t count, ShardStorage* storage) {
  const size_t elem = DTypeSize(w.dtype);
  std::vector<char>& copy = storage->copies.emplace_back(static_cast<size_t>(w.rows * count) * elem);
  for (int64_t r = 0; r < w.rows; ++r) {
    std::memcpy(copy.data() + static_cast<size_t>(r * count) * elem,
                static_cast<const char*>(w.Row(r)) + static_cast<size_t>(begin) * elem, static_cast<size_t>(count) * elem);
  }
  WeightMatrix s = w;
  s.data = copy.data();
  s.cols = count;
  return s;
}

std::vector<float> Slice(const std::vector<float>& v, int64_t begin, int64_t count) {
  if (v.empty()) return v;
  return std::vector<float>(v.begin() + begin, v.begin() + begin + count);
}

Status Divides(int size, int64_t value, const char* name) {
  if (value % size == 0) return Status::Ok();
  return InvalidArgument("tensor parallel size " + std::to_string(size) + " does not divide " + name + " (" +
                         std::to_string(value) + ")");
}

}  // namespace

Status CheckTensorParallel(const ModelConfig& c, int size) {
  if (size < 1) return InvalidArgument("tensor parallel size " + std::to_string(size) + ": must be at least 1");
  VT_RETURN_IF_ERROR(Divides(size, c.num_heads, "num_attention_heads"));
  // Replicating KV heads over ranks (vLLM's way past the KV head count) is not done: say so.
  VT_RETURN_IF_ERROR(Divides(size, c.num_kv_heads, "num_key_value_heads"));
  VT_RETURN_IF_ERROR(Divides(size, c.intermediate_size, "intermediate_size"));
  VT_RETURN_IF_ERROR(Divides(size, c.vocab_size, "vocab_size"));
  if (c.gptq) return Unimplemented("tensor parallelism over GPTQ int4 weights is not built yet");
  return Status::Ok();
}

Result<ShardedModel> ShardModel(const ModelConfig& c, const ModelWeights& w, int rank, int size) {
  VT_RETURN_IF_ERROR(CheckTensorParallel(c, size));
  if (rank < 0 || rank >= size) {
    return InvalidArgument("tensor parallel rank " + std::to_string(rank) + " of size " + std::to_string(size));
  }
  ShardedModel m;
  m.config = c;
  m.config.num_heads = c.num_heads / size;
  m.config.num_kv_heads = c.num_kv_heads / size;
  m.config.intermediate_size = c.intermediate_size / size;
  TensorParallelShard& s = m.shard;
  s.rank = rank;
  s.size = size;
  s.heads_begin = rank * m.config.num_heads;
  s.kv_heads_begin = rank * m.config.num_kv_heads;
  s.intermediate_begin = rank * m.config.intermediate_size;
  s.vocab_count = c.vocab_size / size;
  s.vocab_begin = rank * s.vocab_count;

  auto storage = std::make_shared<ShardStorage>();
  storage->full = w.storage;
  const int64_t d = c.head_dim, q_begin = s.heads_begin * d, q_count = m.config.q_size();
  const int64_t kv_begin = s.kv_heads_begin * d, kv_count = m.config.kv_size();
  const int64_t i_begin = s.intermediate_begin, i_count = m.config.intermediate_size;
  ModelWeights& out = m.weights;
  out.embed_tokens = Rows(w.embed_tokens, s.vocab_begin, s.vocab_count);
  out.lm_head = Rows(w.lm_head, s.vocab_begin, s.vocab_count);
  out.final_norm = w.final_norm;
  out.weight_bytes = w.weight_bytes / static_cast<uint64_t>(size);
  // A rank's slices are read where they lie: its views need the full matrices readable (the caller
  // loads them so: generated or mapped, never released in between), and its column copies are its own
  // memory, which a residency's release would drop.
  out.residency = nullptr;
  for (const LayerWeights& l : w.layers) {
    LayerWeights& o = out.layers.emplace_back();
    o.q_proj = Rows(l.q_proj, q_begin, q_count);
    o.k_proj = Rows(l.k_proj, kv_begin, kv_count);
    o.v_proj = Rows(l.v_proj, kv_begin, kv_count);
    o.o_proj = Columns(l.o_proj, q_begin, q_count, storage.get());
    o.gate_proj = Rows(l.gate_proj, i_begin, i_count);
    o.up_proj = Rows(l.up_proj, i_begin, i_count);
    o.down_proj = Columns(l.down_proj, i_begin, i_count, storage.get());
    o.q_bias = Slice(l.q_bias, q_begin, q_count);
    o.k_bias = Slice(l.k_bias, kv_begin, kv_count);
    o.v_bias = Slice(l.v_bias, kv_begin, kv_count);
    o.q_norm = l.q_norm;  // per head_dim, the same for every head
    o.k_norm = l.k_norm;
    o.input_norm = l.input_norm;
    o.post_attention_norm = l.post_attention_norm;
  }
  out.storage = storage;
  return m;
}

}  // namespace vt
