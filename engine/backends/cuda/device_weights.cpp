#include "engine/backends/cuda/device_weights.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <utility>
#include <string>

#include "engine/loader/gptq_weights.h"
#include "kernels/bf16.h"
#include "kernels/device_alignment.h"
#include "kernels/w4a16/gptq_layout.h"

namespace vt {
namespace {

using kernels::cpu::DType;
using kernels::W4A16Weights;

// Lays tensors out in one allocation: a first pass (null base) sizes it, a second copies into it.
class Uploader {
 public:
  // `residency`: how host matrices become readable and are let go (null: always resident).
  Uploader(unsigned char* base, WeightResidency* residency) : base_(base), residency_(residency) {}

  // Appends the rows of the matrices one after another, as one [sum rows, cols] bf16 matrix. Each
  // part's host memory is held only while it is copied.
  const uint16_t* Dense(const std::vector<const WeightMatrix*>& parts) {
    const auto* start = reinterpret_cast<const uint16_t*>(Cursor());
    for (const WeightMatrix* m : parts) {
      const bool copying = base_ != nullptr && status_.ok() && residency_ != nullptr;
      if (copying) status_ = residency_->Acquire(*m);
      AppendBf16(m->dtype, m->data, m->rows * m->cols);
      if (copying) residency_->Release(*m);
    }
    Align();
    return start;
  }
  // Appends the vectors one after another as bf16; null when the first is empty (absent).
  const uint16_t* Vectors(std::initializer_list<const std::vector<float>*> parts) {
    if ((*parts.begin())->empty()) return nullptr;
    const auto* start = reinterpret_cast<const uint16_t*>(Cursor());
    for (const auto* v : parts) AppendBf16(DType::kF32, v->data(), static_cast<int64_t>(v->size()));
    Align();
    return start;
  }
  // Room for a [k, n] int4 weight; `w` holds it when uploading and is ignored when measuring.
  DeviceMatrix Quantised(int k, int n, int group_size, const W4A16Weights* w) {
    DeviceMatrix m;
    m.k = k;
    m.n = n;
    m.group_size = group_size;
    const size_t words = size_t(k) * n / 8, scales = size_t(k / group_size) * n;
    m.packed = reinterpret_cast<const uint32_t*>(AppendBytes(w ? w->packed.data() : nullptr, words * 4));
    m.scales = reinterpret_cast<const uint16_t*>(AppendBytes(w ? w->scales.data() : nullptr, scales * 2));
    return m;
  }
  bool measuring() const { return base_ == nullptr; }
  // Parts built here rather than borrowed from the load are not the residency's to drop.
  WeightResidency* set_residency(WeightResidency* r) { return std::exchange(residency_, r); }

  size_t used_bytes() const { return offset_; }
  const Status& status() const { return status_; }

 private:
  const unsigned char* Cursor() const { return base_ ? base_ + offset_ : nullptr; }
  void Align() { offset_ = kernels::AlignToDevice(offset_); }

  const unsigned char* AppendBytes(const void* data, size_t bytes) {
    const unsigned char* start = Cursor();
    if (base_ != nullptr && status_.ok()) {
      status_ = CudaCheck(cudaMemcpy(base_ + offset_, data, bytes, cudaMemcpyHostToDevice), "uploading weights");
    }
    offset_ += bytes;
    Align();
    return start;
  }

  // Other float types are converted in bounded slices, so a converted copy of a whole tensor is
  // never held on the host.
  void AppendBf16(DType type, const void* data, int64_t n) {
    if (base_ != nullptr && status_.ok() && type == DType::kBF16) {
      status_ = CudaCheck(cudaMemcpy(base_ + offset_, data, static_cast<size_t>(n) * 2, cudaMemcpyHostToDevice),
                          "uploading weights");
    } else if (base_ != nullptr && status_.ok()) {
      constexpr int64_t kSlice = 8 << 20;  // elements: 16 MiB of bf16
      for (int64_t first = 0; first < n && status_.ok(); first += kSlice) {
        const int64_t count = std::min(kSlice, n - first);
        staging_.resize(static_cast<size_t>(count));
        for (int64_t i = 0; i < count; ++i) {
          staging_[size_t(i)] = FloatToBf16(kernels::cpu::LoadAsFloat(type, data, first + i)).bits;
        }
        status_ = CudaCheck(cudaMemcpy(base_ + offset_ + size_t(first) * 2, staging_.data(), size_t(count) * 2,
                                       cudaMemcpyHostToDevice),
                            "uploading weights");
      }
    }
    offset_ += static_cast<size_t>(n) * 2;
  }

  unsigned char* base_;
  WeightResidency* residency_;
  size_t offset_ = 0;
  std::vector<uint16_t> staging_;
  Status status_;
};

// Where a GPTQ model's int4 projections come from: the checkpoint, or seeded random values.
class QuantisedSource {
 public:
  QuantisedSource(const ModelConfig& config, const std::shared_ptr<const TensorStore>& store)
      : config_(config), store_(store), projections_(DecoderProjections(config)) {}

  // Whether every one of layer `layer`'s projections first..first + count - 1 (DecoderProjections
  // order) is int4: a quantiser may leave some dense, and then the group stays dense.
  bool IsQuantised(int64_t layer, int first, int count) const {
    if (store_ == nullptr) return true;
    for (int i = first; i < first + count; ++i) {
      if (store_->Find(At(layer, i).name + ".qweight") == nullptr) return false;
    }
    return true;
  }

  int GroupSize(int k) const { return config_.gptq->group_size == -1 ? k : config_.gptq->group_size; }

  // Layer `layer`'s projection i as float32, for a group that stays dense around it.
  Result<std::shared_ptr<std::vector<float>>> Dequantized(int64_t layer, int i) const {
    return DequantizeGptqProjection(*store_, At(layer, i), *config_.gptq);
  }

  // Those projections' int4 weights side by side along N.
  Result<W4A16Weights> Fused(int64_t layer, int first, int count) const {
    std::vector<W4A16Weights> parts;
    for (int i = first; i < first + count; ++i) {
      const Projection& p = At(layer, i);
      if (store_ == nullptr) {
        const uint64_t seed = static_cast<uint64_t>(layer * kPerLayer + i);
        parts.push_back(kernels::RandomW4A16Weights(int(p.cols), int(p.rows), GroupSize(int(p.cols)), seed));
        continue;
      }
      Result<kernels::GptqTensors> t = FindGptqProjection(*store_, p, *config_.gptq);
      if (!t.ok()) return t.status();
      Result<W4A16Weights> w = kernels::RepackGptq(*t);
      if (!w.ok()) return Status(w.status().code(), p.name + ": " + w.status().message());
      parts.push_back(std::move(*w));
    }
    if (parts.size() == 1) return std::move(parts[0]);
    std::vector<const W4A16Weights*> views;
    for (const W4A16Weights& w : parts) views.push_back(&w);
    return kernels::ConcatColumns(views);
  }

 private:
  static constexpr int64_t kPerLayer = 7;  // q, k, v, o, gate, up, down
  const Projection& At(int64_t layer, int i) const { return projections_[static_cast<size_t>(layer * kPerLayer + i)]; }
  const ModelConfig& config_;
  std::shared_ptr<const TensorStore> store_;
  std::vector<Projection> projections_;
};

// A projection group as int4 when the model has it so, dense bf16 otherwise.
Result<DeviceMatrix> Group(Uploader& up, const QuantisedSource* quantised, int64_t layer, int first,
                           std::initializer_list<const WeightMatrix*> dense) {
  const int k = int((*dense.begin())->cols);
  int n = 0;
  for (const WeightMatrix* part : dense) n += int(part->rows);
  if (quantised != nullptr && quantised->IsQuantised(layer, first, int(dense.size()))) {
    const int group = quantised->GroupSize(k);
    if (up.measuring()) {
      const Status shape = kernels::CheckW4A16Shape(k, n);
      if (!shape.ok()) {
        return Status(shape.code(), "layer " + std::to_string(layer) + " projection group " + std::to_string(first) +
                                        ": " + shape.message());
      }
      return up.Quantised(k, n, group, nullptr);
    }
    Result<W4A16Weights> w = quantised->Fused(layer, first, int(dense.size()));
    if (!w.ok()) return w.status();
    // The upload must fill exactly what the measuring pass laid out.
    if (w->k != k || w->n != n || w->group_size != group || w->packed.size() != size_t(k) * n / 8 ||
        w->scales.size() != size_t(k / group) * n) {
      return Internal("layer " + std::to_string(layer) + ": repacked int4 weight is not the measured shape");
    }
    return up.Quantised(k, n, group, &*w);
  }
  DeviceMatrix m;
  m.k = k;
  m.n = n;
  // A group that mixes int4 and dense parts stays dense: a device load declared its int4 parts
  // without data (DeclareGptqProjections), so they are dequantised here, one group at a time.
  std::vector<const WeightMatrix*> parts(dense);
  std::vector<WeightMatrix> dequantised;
  std::vector<std::shared_ptr<std::vector<float>>> owned;
  dequantised.reserve(parts.size());
  for (size_t i = 0; i < parts.size() && !up.measuring(); ++i) {
    if (parts[i]->data != nullptr) continue;
    if (quantised == nullptr) return Internal("layer " + std::to_string(layer) + ": a dense weight without data");
    Result<std::shared_ptr<std::vector<float>>> w = quantised->Dequantized(layer, first + int(i));
    if (!w.ok()) return w.status();
    if (*w == nullptr) return Internal("layer " + std::to_string(layer) + ": a dense weight without data");
    owned.push_back(*w);
    dequantised.push_back({DType::kF32, owned.back()->data(), parts[i]->rows, parts[i]->cols});
    parts[i] = &dequantised.back();
  }
  WeightResidency* residency = owned.empty() ? nullptr : up.set_residency(nullptr);
  m.dense = up.Dense(parts);
  if (!owned.empty()) up.set_residency(residency);
  return m;
}

// Binds every tensor through `up`; with a null base it only measures.
Result<DeviceWeights> Bind(const ModelConfig& config, const ModelWeights& w, Uploader& up,
                           const std::shared_ptr<const TensorStore>& store) {
  std::optional<QuantisedSource> quantised;
  if (config.gptq) quantised.emplace(config, store);
  const QuantisedSource* q = quantised ? &*quantised : nullptr;
  DeviceWeights d;
  d.embed_tokens = up.Dense({&w.embed_tokens});
  d.lm_head = config.tie_word_embeddings || w.lm_head.data == w.embed_tokens.data ? d.embed_tokens : up.Dense({&w.lm_head});
  d.final_norm = up.Vectors({&w.final_norm});
  for (int64_t i = 0; i < int64_t(w.layers.size()); ++i) {
    const LayerWeights& l = w.layers[size_t(i)];
    DeviceLayer dl;
    Result<DeviceMatrix> qkv = Group(up, q, i, 0, {&l.q_proj, &l.k_proj, &l.v_proj});
    if (!qkv.ok()) return qkv.status();
    Result<DeviceMatrix> o = Group(up, q, i, 3, {&l.o_proj});
    if (!o.ok()) return o.status();
    Result<DeviceMatrix> gate_up = Group(up, q, i, 4, {&l.gate_proj, &l.up_proj});
    if (!gate_up.ok()) return gate_up.status();
    Result<DeviceMatrix> down = Group(up, q, i, 6, {&l.down_proj});
    if (!down.ok()) return down.status();
    dl.qkv = *qkv;
    dl.o_proj = *o;
    dl.gate_up = *gate_up;
    dl.down_proj = *down;
    dl.qkv_bias = up.Vectors({&l.q_bias, &l.k_bias, &l.v_bias});
    dl.q_norm = up.Vectors({&l.q_norm});
    dl.k_norm = up.Vectors({&l.k_norm});
    dl.input_norm = up.Vectors({&l.input_norm});
    dl.post_attention_norm = up.Vectors({&l.post_attention_norm});
    d.layers.push_back(dl);
  }
  return d;
}

}  // namespace

Result<DeviceWeights> UploadWeights(const ModelConfig& config, const ModelWeights& weights,
                                    const std::shared_ptr<const TensorStore>& store) {
  Uploader measure(nullptr, nullptr);
  Result<DeviceWeights> measured = Bind(config, weights, measure, store);
  if (!measured.ok()) return measured.status();
  const size_t bytes = measure.used_bytes();
  Result<DeviceBuffer> storage = DeviceBuffer::Allocate(bytes, "the model's weights");
  if (!storage.ok()) {
    size_t free_bytes = 0, total_bytes = 0;
    cudaMemGetInfo(&free_bytes, &total_bytes);
    return ResourceExhausted("the model's weights need " + std::to_string(bytes >> 20) + " MiB on the GPU; it has " +
                             std::to_string(free_bytes >> 20) + " MiB free of " + std::to_string(total_bytes >> 20));
  }
  Uploader upload(storage->as<unsigned char>(), weights.residency.get());
  Result<DeviceWeights> d = Bind(config, weights, upload, store);
  if (!d.ok()) return d.status();
  VT_RETURN_IF_ERROR(upload.status());
  d->bytes = bytes;
  d->storage = std::move(*storage);
  return std::move(*d);
}

}  // namespace vt
