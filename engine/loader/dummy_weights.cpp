#include "engine/loader/dummy_weights.h"

#include <sys/mman.h>

#include <cmath>
#include <map>
#include <new>
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

// The values of the seed's tensors: tensor `index` (in creation order) uniform in
// [center - scale, center + scale), stored as dtype.
class DummyValues {
 public:
  DummyValues(DType dtype, uint64_t seed, kernels::cpu::ThreadPool& pool) : dtype_(dtype), seed_(seed), pool_(pool) {}

  DType dtype() const { return dtype_; }

  void Fill(void* data, int64_t n, float center, float scale, uint64_t tensor) const {
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

 private:
  DType dtype_;
  uint64_t seed_;
  kernels::cpu::ThreadPool& pool_;
};

// Matrices generated on Acquire into address space reserved (not committed) at creation, and
// handed back on Release.
class GeneratedOnAcquire final : public WeightResidency {
 public:
  explicit GeneratedOnAcquire(std::shared_ptr<const DummyValues> values) : values_(std::move(values)) {}

  struct Pending {
    uint64_t tensor = 0;
    float center = 0.0f, scale = 0.0f;
  };
  void Expect(const void* data, Pending p) { pending_[data] = p; }

  Status Acquire(const WeightMatrix& m) override {
    auto it = pending_.find(m.data);
    if (it == pending_.end()) return Internal("dummy weights: no generator for a matrix of " + std::to_string(m.rows) + " rows");
    values_->Fill(const_cast<void*>(m.data), m.rows * m.cols, it->second.center, it->second.scale, it->second.tensor);
    return Status::Ok();
  }
  void Release(const WeightMatrix& m) override {
    DropPages(m.data, static_cast<size_t>(m.rows * m.cols) * kernels::cpu::DTypeSize(m.dtype));
  }

 private:
  std::shared_ptr<const DummyValues> values_;
  std::map<const void*, Pending> pending_;
};

// Address space for one matrix that holds no memory until it is written.
std::shared_ptr<char[]> Reserve(size_t bytes) {
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  return std::shared_ptr<char[]>(static_cast<char*>(p), [bytes](char* q) { ::munmap(q, bytes); });
}

class DummyFactory {
 public:
  DummyFactory(DType dtype, uint64_t seed, kernels::cpu::ThreadPool& pool, DummyFill fill, LoadProgress* progress)
      : values_(std::make_shared<DummyValues>(dtype, seed, pool)), progress_(progress) {
    if (fill == DummyFill::kOnAcquire) on_acquire_ = std::make_shared<GeneratedOnAcquire>(values_);
  }

  // Values uniform in [center - scale, center + scale), stored as the factory's dtype.
  WeightMatrix Matrix(int64_t rows, int64_t cols, float center, float scale) {
    const int64_t n = rows * cols;
    const size_t bytes = static_cast<size_t>(n) * kernels::cpu::DTypeSize(values_->dtype());
    const uint64_t tensor = tensor_index_++;
    std::shared_ptr<char[]> buffer;
    if (on_acquire_) {
      buffer = Reserve(bytes);
      on_acquire_->Expect(buffer.get(), {tensor, center, scale});
    } else {
      // Left uninitialised: Fill writes every element, and zeroing a multi-GB
      // model first would double the time dummy loading takes.
      buffer.reset(new char[bytes]);
      values_->Fill(buffer.get(), n, center, scale, tensor);
    }
    buffers_.push_back(buffer);
    bytes_ += bytes;
    progress_->Advance(bytes);
    return {values_->dtype(), buffer.get(), rows, cols};
  }

  // Small vectors are generated as stored values too, then widened, so a dummy
  // model behaves exactly like the same weights loaded from a file.
  std::vector<float> Vector(int64_t n, float center, float scale) {
    std::vector<char> stored(static_cast<size_t>(n) * kernels::cpu::DTypeSize(values_->dtype()));
    values_->Fill(stored.data(), n, center, scale, tensor_index_++);
    bytes_ += stored.size();
    progress_->Advance(stored.size());
    std::vector<float> v(static_cast<size_t>(n));
    kernels::cpu::RowToFloat(values_->dtype(), stored.data(), n, v.data());
    return v;
  }

  uint64_t bytes() const { return bytes_; }
  std::shared_ptr<WeightResidency> residency() const { return on_acquire_; }
  std::shared_ptr<const void> TakeStorage() {
    return std::make_shared<std::vector<std::shared_ptr<const void>>>(std::move(buffers_));
  }

 private:
  std::shared_ptr<const DummyValues> values_;
  std::shared_ptr<GeneratedOnAcquire> on_acquire_;
  LoadProgress* progress_;
  uint64_t tensor_index_ = 0;
  uint64_t bytes_ = 0;
  std::vector<std::shared_ptr<const void>> buffers_;
};

}  // namespace

ModelWeights MakeDummyWeights(const ModelConfig& c, DType dtype, uint64_t seed, kernels::cpu::ThreadPool& pool,
                              DummyFill fill) {
  // Scales keep activations of order one through any depth (uniform with
  // variance 1/fan_in), so greedy output depends on every layer and tests of
  // the forward can fail; vLLM's ±1e-3 would make every logit nearly equal.
  auto fan_in = [](int64_t n) { return std::sqrt(3.0f / static_cast<float>(n)); };
  const int64_t per_layer = 9 + (c.attention_bias ? 3 : 0) + (c.qk_norm ? 2 : 0);
  LoadProgress progress(2 + (c.tie_word_embeddings ? 0 : 1) + c.num_layers * per_layer,
                        static_cast<uint64_t>(c.NumParameters()) * kernels::cpu::DTypeSize(dtype));
  DummyFactory f(dtype, seed, pool, fill, &progress);
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
  w.residency = f.residency();
  return w;
}

}  // namespace vt
