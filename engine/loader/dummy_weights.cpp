#include "engine/loader/dummy_weights.h"

#include <cmath>
#include <string>
#include <vector>

#include "engine/loader/load_progress.h"

namespace vt {

namespace {

using kernels::cpu::DType;

uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Uniform in [-1, 1) from 24 random bits.
float UnitUniform(uint64_t& state) {
  return static_cast<float>(SplitMix64(state) >> 40) * (2.0f / 16777216.0f) - 1.0f;
}

// Streams are seeded per (tensor, chunk) so the values do not depend on how
// the chunks are spread over threads.
constexpr int64_t kChunk = 1 << 16;

class DummyFactory {
 public:
  DummyFactory(DType dtype, uint64_t seed, kernels::cpu::ThreadPool& pool, LoadProgress* progress)
      : dtype_(dtype), seed_(seed), pool_(pool), progress_(progress) {}

  // Values uniform in [center - scale, center + scale), stored as dtype_.
  WeightMatrix Matrix(int64_t rows, int64_t cols, float center, float scale) {
    const int64_t n = rows * cols;
    // Left uninitialised: Fill writes every element, and zeroing a multi-GB
    // model first would double the time dummy loading takes.
    std::shared_ptr<char[]> buffer(new char[static_cast<size_t>(n) * kernels::cpu::DTypeSize(dtype_)]);
    Fill(buffer.get(), n, center, scale);
    buffers_.push_back(buffer);
    bytes_ += static_cast<uint64_t>(n) * kernels::cpu::DTypeSize(dtype_);
    progress_->Advance(static_cast<uint64_t>(n) * kernels::cpu::DTypeSize(dtype_));
    return {dtype_, buffer.get(), rows, cols};
  }

  // Small vectors are generated as stored values too, then widened, so a dummy
  // model behaves exactly like the same weights loaded from a file.
  std::vector<float> Vector(int64_t n, float center, float scale) {
    WeightMatrix m = Matrix(1, n, center, scale);
    std::vector<float> v(static_cast<size_t>(n));
    kernels::cpu::RowToFloat(dtype_, m.data, n, v.data());
    return v;
  }

  uint64_t bytes() const { return bytes_; }
  std::shared_ptr<const void> TakeStorage() {
    return std::make_shared<std::vector<std::shared_ptr<const void>>>(std::move(buffers_));
  }

 private:
  void Fill(void* data, int64_t n, float center, float scale) {
    const uint64_t tensor = tensor_index_++;
    const int64_t chunks = (n + kChunk - 1) / kChunk;
    pool_.ParallelFor(chunks, [&](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c) {
        uint64_t state = seed_ ^ (tensor * 0x100000001b3ull) ^ (static_cast<uint64_t>(c) << 32);
        SplitMix64(state);
        const int64_t end = std::min(n, (c + 1) * kChunk);
        for (int64_t i = c * kChunk; i < end; ++i) {
          const float v = center + scale * UnitUniform(state);
          switch (dtype_) {
            case DType::kF32: static_cast<float*>(data)[i] = v; break;
            case DType::kBF16: static_cast<uint16_t*>(data)[i] = FloatToBf16(v).bits; break;
            case DType::kF16: static_cast<uint16_t*>(data)[i] = kernels::cpu::FloatToFp16(v); break;
          }
        }
      }
    });
  }

  DType dtype_;
  uint64_t seed_;
  kernels::cpu::ThreadPool& pool_;
  LoadProgress* progress_;
  uint64_t tensor_index_ = 0;
  uint64_t bytes_ = 0;
  std::vector<std::shared_ptr<const void>> buffers_;
};

}  // namespace

ModelWeights MakeDummyWeights(const ModelConfig& c, DType dtype, uint64_t seed, kernels::cpu::ThreadPool& pool) {
  // Scales keep activations of order one through any depth (uniform with
  // variance 1/fan_in), so greedy output depends on every layer and tests of
  // the forward can fail; vLLM's ±1e-3 would make every logit nearly equal.
  auto fan_in = [](int64_t n) { return std::sqrt(3.0f / static_cast<float>(n)); };
  const int64_t per_layer = 9 + (c.attention_bias ? 3 : 0) + (c.qk_norm ? 2 : 0);
  LoadProgress progress(2 + (c.tie_word_embeddings ? 0 : 1) + c.num_layers * per_layer,
                        static_cast<uint64_t>(c.NumParameters()) * kernels::cpu::DTypeSize(dtype));
  DummyFactory f(dtype, seed, pool, &progress);
  ModelWeights w;
  w.embed_tokens = f.Matrix(c.vocab_size, c.hidden_size, 0.0f, 1.0f);
  w.lm_head = c.tie_word_embeddings ? w.embed_tokens : f.Matrix(c.vocab_size, c.hidden_size, 0.0f, fan_in(c.hidden_size));
  w.final_norm = f.Vector(c.hidden_size, 1.0f, 0.1f);
  w.layers.resize(static_cast<size_t>(c.num_layers));
  for (LayerWeights& l : w.layers) {
    l.input_norm = f.Vector(c.hidden_size, 1.0f, 0.1f);
    l.post_attention_norm = f.Vector(c.hidden_size, 1.0f, 0.1f);
    l.q_proj = f.Matrix(c.q_size(), c.hidden_size, 0.0f, fan_in(c.hidden_size));
    l.k_proj = f.Matrix(c.kv_size(), c.hidden_size, 0.0f, fan_in(c.hidden_size));
    l.v_proj = f.Matrix(c.kv_size(), c.hidden_size, 0.0f, fan_in(c.hidden_size));
    l.o_proj = f.Matrix(c.hidden_size, c.q_size(), 0.0f, fan_in(c.q_size()));
    if (c.attention_bias) {
      l.q_bias = f.Vector(c.q_size(), 0.0f, 0.1f);
      l.k_bias = f.Vector(c.kv_size(), 0.0f, 0.1f);
      l.v_bias = f.Vector(c.kv_size(), 0.0f, 0.1f);
    }
    if (c.qk_norm) {
      l.q_norm = f.Vector(c.head_dim, 1.0f, 0.1f);
      l.k_norm = f.Vector(c.head_dim, 1.0f, 0.1f);
    }
    l.gate_proj = f.Matrix(c.intermediate_size, c.hidden_size, 0.0f, fan_in(c.hidden_size));
    l.up_proj = f.Matrix(c.intermediate_size, c.hidden_size, 0.0f, fan_in(c.hidden_size));
    l.down_proj = f.Matrix(c.hidden_size, c.intermediate_size, 0.0f, fan_in(c.intermediate_size));
  }
  progress.Done();
  w.weight_bytes = f.bytes();
  w.storage = f.TakeStorage();
  return w;
}

}  // namespace vt
