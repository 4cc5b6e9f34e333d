#include "engine/backends/cpu/decoder_model.h"

#include <cmath>

#include "kernels/cpu/embedding.h"
#include "kernels/cpu/matmul.h"
#include "kernels/cpu/paged_attention.h"
#include "kernels/cpu/paged_kv.h"
#include "kernels/cpu/rms_norm.h"
#include "kernels/cpu/rope.h"
#include "kernels/cpu/silu_mul.h"

namespace vt {

namespace cpu = kernels::cpu;

namespace {

void AddInPlace(const std::vector<float>& src, std::vector<float>* dst) {
  for (size_t i = 0; i < src.size(); ++i) (*dst)[i] += src[i];
}

}  // namespace

DecoderModel::DecoderModel(ModelConfig config, ModelWeights weights, cpu::ThreadPool* pool,
                           std::optional<TensorParallelRank> tp)
    : config_(std::move(config)), weights_(std::move(weights)), pool_(pool), tp_(tp) {
  inv_freq_ = cpu::RopeInvFreq(config_.head_dim, config_.rope_theta, config_.rope_scaling);
}

Status DecoderModel::Forward(const std::vector<ForwardSeq>& batch, KvCacheStorage* cache,
                             std::vector<float>* logits) {
  const ModelConfig& c = config_;
  int64_t rows = 0;
  for (const ForwardSeq& s : batch) {
    if (s.num_tokens <= 0) return InvalidArgument("forward: empty sequence");
    if (s.start_pos + s.num_tokens > s.num_blocks * cache->Layer(0).block_size) {
      return InvalidArgument("forward: block table too short for the sequence");
    }
    for (int64_t i = 0; i < s.num_tokens; ++i) {
      if (s.tokens[i] < 0 || s.tokens[i] >= c.vocab_size) {
        return InvalidArgument("token id " + std::to_string(s.tokens[i]) + " is outside the vocabulary (" +
                               std::to_string(c.vocab_size) + ")");
      }
    }
    rows += s.num_tokens;
  }
  rows_ = rows;
  positions_.resize(rows);
  slots_.resize(rows);
  std::vector<int32_t> ids(rows);
  const int64_t block_size = cache->Layer(0).block_size;
  int64_t row = 0;
  for (const ForwardSeq& s : batch) {
    for (int64_t i = 0; i < s.num_tokens; ++i, ++row) {
      const int64_t pos = s.start_pos + i;
      ids[row] = s.tokens[i];
      positions_[row] = static_cast<int32_t>(pos);
      slots_[row] = static_cast<int64_t>(s.block_table[pos / block_size]) * block_size + pos % block_size;
    }
  }

  const int64_t h = c.hidden_size;
  hidden_.resize(rows * h);
  normed_.resize(rows * h);
  q_.resize(rows * c.q_size());
  k_.resize(rows * c.kv_size());
  v_.resize(rows * c.kv_size());
  attn_.resize(rows * c.q_size());
  proj_.resize(rows * h);
  gate_.resize(rows * c.intermediate_size);
  up_.resize(rows * c.intermediate_size);
  cos_.resize(rows * c.head_dim / 2);
  sin_.resize(rows * c.head_dim / 2);
  cpu::RopeCosSin(inv_freq_, positions_.data(), rows, cos_.data(), sin_.data());
  if (tp_) {
    cpu::EmbeddingSlice(weights_.embed_tokens, tp_->shard.vocab_begin, ids.data(), rows, hidden_.data());
    AllReduce(&hidden_);
  } else {
    cpu::Embedding(weights_.embed_tokens, ids.data(), rows, hidden_.data());
  }

  for (int64_t layer = 0; layer < c.num_layers; ++layer) {
    const LayerWeights& l = weights_.layers[layer];
    Attention(l, layer, batch, cache);
    Mlp(l);
  }

  // Only the rows that sample need the final norm and the (large) lm_head.
  std::vector<float> last;
  row = 0;
  int64_t wanted = 0;
  for (const ForwardSeq& s : batch) {
    row += s.num_tokens;
    if (!s.want_logits) continue;
    last.insert(last.end(), hidden_.begin() + (row - 1) * h, hidden_.begin() + row * h);
    ++wanted;
  }
  logits->assign(wanted * c.vocab_size, 0.0f);
  if (wanted == 0) return Status::Ok();
  cpu::RmsNorm(last.data(), weights_.final_norm.data(), wanted, h, c.rms_norm_eps, last.data());
  if (!tp_) {
    cpu::MatMul(*pool_, last.data(), wanted, weights_.lm_head, nullptr, logits->data());
    return Status::Ok();
  }
  // Vocabulary-parallel head: each rank's slice of the logits, gathered whole on every rank.
  std::vector<float> slice(static_cast<size_t>(wanted * weights_.lm_head.rows));
  cpu::MatMul(*pool_, last.data(), wanted, weights_.lm_head, nullptr, slice.data());
  tp_->collective->AllGatherColumns(slice.data(), wanted, weights_.lm_head.rows, logits->data());
  return Status::Ok();
}

void DecoderModel::AllReduce(std::vector<float>* partial) {
  if (tp_) tp_->collective->AllReduceSum(partial->data(), static_cast<int64_t>(partial->size()));
}

void DecoderModel::Attention(const LayerWeights& l, int64_t layer, const std::vector<ForwardSeq>& batch,
                             KvCacheStorage* cache) {
  const ModelConfig& c = config_;
  const int64_t rows = rows_;
  cpu::RmsNorm(hidden_.data(), l.input_norm.data(), rows, c.hidden_size, c.rms_norm_eps, normed_.data());
  cpu::MatMul(*pool_, normed_.data(), rows, l.q_proj, l.q_bias.empty() ? nullptr : l.q_bias.data(), q_.data());
  cpu::MatMul(*pool_, normed_.data(), rows, l.k_proj, l.k_bias.empty() ? nullptr : l.k_bias.data(), k_.data());
  cpu::MatMul(*pool_, normed_.data(), rows, l.v_proj, l.v_bias.empty() ? nullptr : l.v_bias.data(), v_.data());
  if (c.qk_norm) {
    cpu::RmsNorm(q_.data(), l.q_norm.data(), rows * c.num_heads, c.head_dim, c.rms_norm_eps, q_.data());
    cpu::RmsNorm(k_.data(), l.k_norm.data(), rows * c.num_kv_heads, c.head_dim, c.rms_norm_eps, k_.data());
  }
  cpu::ApplyRope(q_.data(), rows, c.num_heads, c.head_dim, cos_.data(), sin_.data());
  cpu::ApplyRope(k_.data(), rows, c.num_kv_heads, c.head_dim, cos_.data(), sin_.data());

  const cpu::PagedKvLayer kv = cache->Layer(layer);
  cpu::PagedKvWrite(kv, k_.data(), v_.data(), slots_.data(), rows);
  std::vector<cpu::AttentionSeq> seqs;
  int64_t begin = 0;
  for (const ForwardSeq& s : batch) {
    seqs.push_back({begin, s.num_tokens, s.start_pos, s.block_table});
    begin += s.num_tokens;
  }
  const float scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(c.head_dim)));
  cpu::PagedAttentionPrefill(*pool_, kv, q_.data(), c.num_heads, seqs.data(), static_cast<int64_t>(seqs.size()),
                             scale, attn_.data());
  cpu::MatMul(*pool_, attn_.data(), rows, l.o_proj, nullptr, proj_.data());
  AllReduce(&proj_);
  AddInPlace(proj_, &hidden_);
}

void DecoderModel::Mlp(const LayerWeights& l) {
  const ModelConfig& c = config_;
  const int64_t rows = rows_;
  cpu::RmsNorm(hidden_.data(), l.post_attention_norm.data(), rows, c.hidden_size, c.rms_norm_eps, normed_.data());
  cpu::MatMul(*pool_, normed_.data(), rows, l.gate_proj, nullptr, gate_.data());
  cpu::MatMul(*pool_, normed_.data(), rows, l.up_proj, nullptr, up_.data());
  cpu::SiluMul(gate_.data(), up_.data(), rows * c.intermediate_size, gate_.data());
  cpu::MatMul(*pool_, gate_.data(), rows, l.down_proj, nullptr, proj_.data());
  AllReduce(&proj_);
  AddInPlace(proj_, &hidden_);
}

}  // namespace vt
