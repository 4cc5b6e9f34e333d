#include "engine/loader/weight_binding.h"

#include <string>

namespace vt {

namespace {

class Binder {
 public:
  explicit Binder(const TensorStore& store) : store_(store) {}

  Status Matrix(const std::string& name, int64_t rows, int64_t cols, WeightMatrix* out) {
    const TensorInfo* t = store_.Find(name);
    if (t == nullptr) return NotFound("checkpoint has no tensor '" + name + "'");
    if (t->shape != std::vector<int64_t>{rows, cols}) {
      return InvalidArgument("tensor '" + name + "' in " + t->file + " has shape " + ShapeString(t->shape) +
                             ", the config needs " + ShapeString({rows, cols}));
    }
    Result<DType> dtype = t->FloatType(name);
    if (!dtype.ok()) return dtype.status();
    *out = {*dtype, t->data, rows, cols};
    return Status::Ok();
  }

  Status Vector(const std::string& name, int64_t n, std::vector<float>* out) {
    const TensorInfo* t = store_.Find(name);
    if (t == nullptr) return NotFound("checkpoint has no tensor '" + name + "'");
    if (t->shape != std::vector<int64_t>{n}) {
      return InvalidArgument("tensor '" + name + "' in " + t->file + " has shape " + ShapeString(t->shape) +
                             ", the config needs " + ShapeString({n}));
    }
    Result<DType> dtype = t->FloatType(name);
    if (!dtype.ok()) return dtype.status();
    out->resize(static_cast<size_t>(n));
    kernels::cpu::RowToFloat(*dtype, t->data, n, out->data());
    return Status::Ok();
  }

 private:
  const TensorStore& store_;
};

}  // namespace

Result<ModelWeights> BindWeights(const ModelConfig& c, std::shared_ptr<const TensorStore> store) {
  Binder b(*store);
  ModelWeights w;
  VT_RETURN_IF_ERROR(b.Matrix("model.embed_tokens.weight", c.vocab_size, c.hidden_size, &w.embed_tokens));
  VT_RETURN_IF_ERROR(b.Vector("model.norm.weight", c.hidden_size, &w.final_norm));
  if (c.tie_word_embeddings) {
    w.lm_head = w.embed_tokens;
  } else {
    VT_RETURN_IF_ERROR(b.Matrix("lm_head.weight", c.vocab_size, c.hidden_size, &w.lm_head));
  }
  w.layers.resize(static_cast<size_t>(c.num_layers));
  for (int64_t i = 0; i < c.num_layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i) + ".";
    LayerWeights& l = w.layers[i];
    VT_RETURN_IF_ERROR(b.Vector(p + "input_layernorm.weight", c.hidden_size, &l.input_norm));
    VT_RETURN_IF_ERROR(b.Vector(p + "post_attention_layernorm.weight", c.hidden_size, &l.post_attention_norm));
    VT_RETURN_IF_ERROR(b.Matrix(p + "self_attn.q_proj.weight", c.q_size(), c.hidden_size, &l.q_proj));
    VT_RETURN_IF_ERROR(b.Matrix(p + "self_attn.k_proj.weight", c.kv_size(), c.hidden_size, &l.k_proj));
    VT_RETURN_IF_ERROR(b.Matrix(p + "self_attn.v_proj.weight", c.kv_size(), c.hidden_size, &l.v_proj));
    VT_RETURN_IF_ERROR(b.Matrix(p + "self_attn.o_proj.weight", c.hidden_size, c.q_size(), &l.o_proj));
    if (c.attention_bias) {
      VT_RETURN_IF_ERROR(b.Vector(p + "self_attn.q_proj.bias", c.q_size(), &l.q_bias));
      VT_RETURN_IF_ERROR(b.Vector(p + "self_attn.k_proj.bias", c.kv_size(), &l.k_bias));
      VT_RETURN_IF_ERROR(b.Vector(p + "self_attn.v_proj.bias", c.kv_size(), &l.v_bias));
    }
    if (c.qk_norm) {
      VT_RETURN_IF_ERROR(b.Vector(p + "self_attn.q_norm.weight", c.head_dim, &l.q_norm));
      VT_RETURN_IF_ERROR(b.Vector(p + "self_attn.k_norm.weight", c.head_dim, &l.k_norm));
    }
    VT_RETURN_IF_ERROR(b.Matrix(p + "mlp.gate_proj.weight", c.intermediate_size, c.hidden_size, &l.gate_proj));
    VT_RETURN_IF_ERROR(b.Matrix(p + "mlp.up_proj.weight", c.intermediate_size, c.hidden_size, &l.up_proj));
    VT_RETURN_IF_ERROR(b.Matrix(p + "mlp.down_proj.weight", c.hidden_size, c.intermediate_size, &l.down_proj));
  }
  w.weight_bytes = store->TotalBytes();
  w.storage = std::move(store);
  return w;
}

}  // namespace vt
