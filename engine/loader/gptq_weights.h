// GPTQ int4 checkpoints (config.json quantization_config.quant_method = gptq):
// each decoder projection <name> is stored as <name>.qweight, .qzeros, .scales
// and .g_idx instead of <name>.weight (layout in kernels/w4a16/gptq_layout.h).
//
// The CPU backend dequantises every projection once at load into a float32
// <name>.weight added to the store, so the layer plan binds it like any other
// matrix: (q - 8) * bf16(scale) is exact in float32, and float32 is a type the
// CPU matmul reads. The raw GPTQ tensors stay in the store; the CUDA backend's
// seam is FindGptqProjection + kernels::RepackGptq, keeping the int4 tile
// layout instead of dequantising.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/config/model_config.h"
#include "base/status.h"
#include "engine/loader/tensor_store.h"
#include "kernels/cpu/thread_pool.h"
#include "kernels/w4a16/gptq_layout.h"

namespace vt {

// A Linear layer of the decoder: HF weight [rows, cols] = [out (N), in (K)].
struct Projection {
  std::string name;  // without ".weight", e.g. model.layers.0.self_attn.q_proj
  int64_t rows = 0;
  int64_t cols = 0;
};

// The quantised projections of a decoder, layer by layer (embeddings, norms and
// lm_head are never quantised).
std::vector<Projection> DecoderProjections(const ModelConfig& config);

// Views of projection p's GPTQ tensors in `store`, each checked for presence,
// dtype and shape against p and `gptq`; errors name the tensor.
Result<kernels::GptqTensors> FindGptqProjection(const TensorStore& store, const Projection& p,
                                                const GptqConfig& gptq);

// For every decoder projection stored as GPTQ: validates its tensors with
// kernels::ValidateGptq (so the CPU accepts exactly what the W4A16 kernel does)
// and adds the dequantised float32 [rows, cols] weight to `store` as
// <name>.weight. A projection the quantiser skipped (a plain <name>.weight)
// is left as it is; one with both forms is an error. Projections are processed
// in parallel on `pool`.
Status DequantizeGptqProjections(const ModelConfig& config, TensorStore* store,
                                 kernels::cpu::ThreadPool& pool);

// Projection p as a float32 [rows, cols] matrix in HF Linear layout, the transpose of GPTQ's
// [K, N], validated as the W4A16 kernel validates; null when the checkpoint left p unquantised (a
// plain <name>.weight, as quantisers do for modules they skip).
Result<std::shared_ptr<std::vector<float>>> DequantizeGptqProjection(const TensorStore& store, const Projection& p,
                                                                     const GptqConfig& gptq);

// For a load onto a device, which reads the int4 tensors itself: every GPTQ projection gets a
// shape-only <name>.weight (no data), so the layer plan binds it without a float32 copy.
Status DeclareGptqProjections(const ModelConfig& config, TensorStore* store);

}  // namespace vt
