#include "engine/loader/gptq_weights.h"

#include <memory>
#include <span>

#include "kernels/cpu/w4a16_reference.h"
#include "kernels/w4a16/w4a16_shape.h"

namespace vt {

namespace {

Result<const TensorInfo*> FindTensor(const TensorStore& store, const std::string& name, TensorDType dtype,
                                     const std::vector<int64_t>& shape) {
  const TensorInfo* t = store.Find(name);
  if (t == nullptr) return NotFound("checkpoint has no tensor '" + name + "'");
  if (t->dtype != dtype) {
    return InvalidArgument("tensor '" + name + "' in " + t->file + " is " + TensorDTypeName(t->dtype) +
                           ", GPTQ stores it as " + TensorDTypeName(dtype));
  }
  if (t->shape != shape) {
    return InvalidArgument("tensor '" + name + "' in " + t->file + " has shape " + ShapeString(t->shape) +
                           ", GPTQ needs " + ShapeString(shape));
  }
  return t;
}

template <typename T>
std::span<const T> View(const TensorInfo& t) {
  return {static_cast<const T*>(t.data), static_cast<size_t>(t.NumElements())};
}

}  // namespace

Result<std::shared_ptr<std::vector<float>>> DequantizeGptqProjection(const TensorStore& store, const Projection& p,
                                                                     const GptqConfig& gptq) {
  const TensorInfo* weight = store.Find(p.name + ".weight");
  if (weight != nullptr && weight->data != nullptr) {
    if (store.Find(p.name + ".qweight") == nullptr) return std::shared_ptr<std::vector<float>>();
    return DataLoss("checkpoint has both '" + p.name + ".weight' and the GPTQ '" + p.name + ".qweight'");
  }
  Result<kernels::GptqTensors> t = FindGptqProjection(store, p, gptq);
  if (!t.ok()) return t.status();
  // The W4A16 kernel's own validation (symmetric zero points, trivial g_idx,
  // finite scales); the CPU keeps the dequantised weight, so nothing is repacked.
  if (Status checked = kernels::ValidateGptq(*t); !checked.ok()) {
    return Status(checked.code(), p.name + ": " + checked.message());
  }
  const std::vector<float> kn = kernels::cpu::DequantizeGptq(*t);
  auto nk = std::make_shared<std::vector<float>>(kn.size());
  for (int64_t k = 0; k < p.cols; ++k) {
    for (int64_t n = 0; n < p.rows; ++n) (*nk)[n * p.cols + k] = kn[k * p.rows + n];
  }
  return nk;
}


std::vector<Projection> DecoderProjections(const ModelConfig& c) {
  std::vector<Projection> out;
  for (int64_t i = 0; i < c.num_layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i) + ".";
    out.push_back({p + "self_attn.q_proj", c.q_size(), c.hidden_size});
    out.push_back({p + "self_attn.k_proj", c.kv_size(), c.hidden_size});
    out.push_back({p + "self_attn.v_proj", c.kv_size(), c.hidden_size});
    out.push_back({p + "self_attn.o_proj", c.hidden_size, c.q_size()});
    out.push_back({p + "mlp.gate_proj", c.intermediate_size, c.hidden_size});
    out.push_back({p + "mlp.up_proj", c.intermediate_size, c.hidden_size});
    out.push_back({p + "mlp.down_proj", c.hidden_size, c.intermediate_size});
  }
  return out;
}

Result<kernels::GptqTensors> FindGptqProjection(const TensorStore& store, const Projection& p,
                                                const GptqConfig& gptq) {
  const Status shape = kernels::CheckW4A16Shape(static_cast<int>(p.cols), static_cast<int>(p.rows));
  if (!shape.ok()) return Status(shape.code(), p.name + ": " + shape.message());
  if (gptq.group_size <= 0 && gptq.group_size != -1) {
    return InvalidArgument(p.name + ": GPTQ group_size = " + std::to_string(gptq.group_size) + " is invalid");
  }
  const int64_t k = p.cols, n = p.rows;
  const int64_t groups = gptq.group_size == -1 ? 1 : k / gptq.group_size;
  Result<const TensorInfo*> qweight = FindTensor(store, p.name + ".qweight", TensorDType::kI32, {k / 8, n});
  if (!qweight.ok()) return qweight.status();
  Result<const TensorInfo*> qzeros =
      FindTensor(store, p.name + ".qzeros", TensorDType::kI32, {groups, n / 8});
  if (!qzeros.ok()) return qzeros.status();
  Result<const TensorInfo*> scales = FindTensor(store, p.name + ".scales", TensorDType::kF16, {groups, n});
  if (!scales.ok()) return scales.status();

  kernels::GptqTensors t;
  t.k = static_cast<int>(k);
  t.n = static_cast<int>(n);
  t.bits = gptq.bits;
  t.group_size = gptq.group_size;
  t.sym = gptq.sym;
  t.desc_act = gptq.desc_act;
  t.qweight = View<int32_t>(**qweight);
  t.qzeros = View<int32_t>(**qzeros);
  t.scales = View<uint16_t>(**scales);
  // Some writers leave g_idx out when it is trivial; RepackGptq accepts that.
  if (store.Find(p.name + ".g_idx") != nullptr) {
    Result<const TensorInfo*> g_idx = FindTensor(store, p.name + ".g_idx", TensorDType::kI32, {k});
    if (!g_idx.ok()) return g_idx.status();
    t.g_idx = View<int32_t>(**g_idx);
  }
  return t;
}

Status DequantizeGptqProjections(const ModelConfig& config, TensorStore* store,
                                 kernels::cpu::ThreadPool& pool) {
  if (!config.gptq) {
    return InvalidArgument("DequantizeGptqProjections: the config is not a GPTQ checkpoint's");
  }
  const std::vector<Projection> projections = DecoderProjections(config);
  std::vector<Status> errors(projections.size());
  std::vector<std::shared_ptr<std::vector<float>>> weights(projections.size());
  pool.ParallelFor(static_cast<int64_t>(projections.size()), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      Result<std::shared_ptr<std::vector<float>>> w = DequantizeGptqProjection(*store, projections[i], *config.gptq);
      if (w.ok()) {
        weights[i] = std::move(*w);
      } else {
        errors[i] = w.status();
      }
    }
  });
  // The first error in layer order, so the message does not depend on threads.
  for (const Status& s : errors) VT_RETURN_IF_ERROR(s);
  for (size_t i = 0; i < projections.size(); ++i) {
    const Projection& p = projections[i];
    if (weights[i] == nullptr) continue;
    TensorInfo info;
    info.dtype = TensorDType::kF32;
    info.shape = {p.rows, p.cols};
    info.data = weights[i]->data();
    info.nbytes = weights[i]->size() * sizeof(float);
    info.file = store->Find(p.name + ".qweight")->file;
    store->Add(p.name + ".weight", std::move(info));  // the name is free: Dequantize checked
    store->KeepAlive(std::move(weights[i]));
  }
  return Status::Ok();
}

Status DeclareGptqProjections(const ModelConfig& config, TensorStore* store) {
  if (!config.gptq) return InvalidArgument("DeclareGptqProjections: the config is not a GPTQ checkpoint's");
  for (const Projection& p : DecoderProjections(config)) {
    const TensorInfo* qweight = store->Find(p.name + ".qweight");
    if (qweight == nullptr) continue;  // left dense by the quantiser
    if (store->Find(p.name + ".weight") != nullptr) {
      return DataLoss("checkpoint has both '" + p.name + ".weight' and the GPTQ '" + p.name + ".qweight'");
    }
    TensorInfo shape_only;
    shape_only.dtype = TensorDType::kF32;
    shape_only.shape = {p.rows, p.cols};
    shape_only.file = qweight->file;
    store->Add(p.name + ".weight", std::move(shape_only));
  }
  return Status::Ok();
}

}  // namespace vt
