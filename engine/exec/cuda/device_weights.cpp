#include "engine/exec/cuda/device_weights.h"

#include <cstring>
#include <string>

#include "kernels/bf16.h"

namespace vt {
namespace {

using kernels::cpu::DType;

size_t Aligned(size_t bytes) { return (bytes + 255) / 256 * 256; }

// Lays tensors out in one allocation: a first pass sizes it, a second copies into it.
class Uploader {
 public:
  explicit Uploader(uint16_t* base) : base_(base) {}

  // Appends the rows of `m` (converted to bf16 unless already bf16); returns where they start.
  const uint16_t* Matrix(const WeightMatrix& m) { return Append(m.dtype, m.data, m.rows * m.cols); }
  // Appends the matrices one after another, as one [sum rows, cols] matrix.
  const uint16_t* Fused(std::initializer_list<const WeightMatrix*> parts) {
    const uint16_t* start = Cursor();
    for (const WeightMatrix* m : parts) Append(m->dtype, m->data, m->rows * m->cols, /*pad=*/false);
    Pad();
    return start;
  }
  const uint16_t* Vector(const std::vector<float>& v) {
    if (v.empty()) return nullptr;
    return Append(DType::kF32, v.data(), static_cast<int64_t>(v.size()));
  }
  const uint16_t* FusedVector(std::initializer_list<const std::vector<float>*> parts) {
    if ((*parts.begin())->empty()) return nullptr;
    const uint16_t* start = Cursor();
    for (const auto* v : parts) Append(DType::kF32, v->data(), static_cast<int64_t>(v->size()), /*pad=*/false);
    Pad();
    return start;
  }

  size_t used_bytes() const { return offset_ * 2; }
  const Status& status() const { return status_; }

 private:
  const uint16_t* Cursor() const { return base_ ? base_ + offset_ : nullptr; }
  void Pad() { offset_ = Aligned(offset_ * 2) / 2; }

  const uint16_t* Append(DType type, const void* data, int64_t n, bool pad = true) {
    const uint16_t* start = Cursor();
    if (base_ != nullptr && status_.ok()) {
      const void* src = data;
      if (type != DType::kBF16) {
        staging_.resize(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) staging_[i] = FloatToBf16(kernels::cpu::LoadAsFloat(type, data, i)).bits;
        src = staging_.data();
      }
      status_ = CudaCheck(cudaMemcpy(base_ + offset_, src, static_cast<size_t>(n) * 2, cudaMemcpyHostToDevice),
                          "uploading weights");
    }
    offset_ += static_cast<size_t>(n);
    if (pad) Pad();
    return start;
  }

  uint16_t* base_;
  size_t offset_ = 0;  // in bf16 elements
  std::vector<uint16_t> staging_;
  Status status_;
};

// Binds every tensor through `up`; with a null base it only measures.
DeviceWeights Bind(const ModelConfig& config, const ModelWeights& w, Uploader& up) {
  DeviceWeights d;
  d.embed_tokens = up.Matrix(w.embed_tokens);
  d.lm_head = config.tie_word_embeddings || w.lm_head.data == w.embed_tokens.data ? d.embed_tokens : up.Matrix(w.lm_head);
  d.final_norm = up.Vector(w.final_norm);
  for (const LayerWeights& l : w.layers) {
    DeviceLayer dl;
    dl.qkv = up.Fused({&l.q_proj, &l.k_proj, &l.v_proj});
    dl.qkv_bias = up.FusedVector({&l.q_bias, &l.k_bias, &l.v_bias});
    dl.o_proj = up.Matrix(l.o_proj);
    dl.gate_up = up.Fused({&l.gate_proj, &l.up_proj});
    dl.down_proj = up.Matrix(l.down_proj);
    dl.q_norm = up.Vector(l.q_norm);
    dl.k_norm = up.Vector(l.k_norm);
    dl.input_norm = up.Vector(l.input_norm);
    dl.post_attention_norm = up.Vector(l.post_attention_norm);
    d.layers.push_back(dl);
  }
  return d;
}

}  // namespace

Result<DeviceWeights> UploadWeights(const ModelConfig& config, const ModelWeights& weights) {
  Uploader measure(nullptr);
  Bind(config, weights, measure);
  const size_t bytes = measure.used_bytes();
  Result<DeviceBuffer> storage = DeviceBuffer::Allocate(bytes, "the model's weights");
  if (!storage.ok()) {
    size_t free_bytes = 0, total_bytes = 0;
    cudaMemGetInfo(&free_bytes, &total_bytes);
    return ResourceExhausted("the model's bf16 weights need " + std::to_string(bytes >> 20) + " MiB; the GPU has " +
                             std::to_string(free_bytes >> 20) + " MiB free of " + std::to_string(total_bytes >> 20));
  }
  Uploader upload(storage->as<uint16_t>());
  DeviceWeights d = Bind(config, weights, upload);
  VT_RETURN_IF_ERROR(upload.status());
  d.bytes = bytes;
  d.storage = std::move(*storage);
  return d;
}

}  // namespace vt
