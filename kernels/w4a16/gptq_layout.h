// GPTQ int4 checkpoints and the tile layout vt's W4A16 GEMM reads. Plain C++: the
// checks and the repack run once at load, on any machine, and are unit-tested without
// a GPU.
//
// GPTQ on disk (AutoGPTQ / GPTQModel, bits 4, sym, desc_act false):
//   qweight int32 [K/8, N]     eight 4-bit values along K per word, k % 8 at bits 4*(k % 8)
//   qzeros  int32 [G, N/8]     zero points; symmetric checkpoints store 8 (or 7, the v1
//                              format's "zero - 1") in every nibble
//   scales  fp16  [G, N]       G = K / group_size (1 for per-channel, group_size -1)
//   g_idx   int32 [K]          k / group_size when desc_act is false
//   weight[k][n] = (q[k][n] - 8) * scales[k / group_size][n]
//
// vt's tile layout (W4A16Weights::packed): for each 16-column block nb and 64-row block kb,
// 32 lanes x 4 words (one 16-byte load per lane). Word s of lane L (q = L / 4, c = L % 4)
// holds the k16 step kb*64 + 16s; its nibble j lands in bf16 lane j < 4 ? low : high of
// register j % 4 after dequantisation, matching the B fragments of mma.m16n8k16:
//   nibbles 0/4: k = 2c, 2c+1,   n = q      (b0, columns 0-7)
//   nibbles 1/5: k = 2c+8, 2c+9, n = q      (b1, columns 0-7)
//   nibbles 2/6: k = 2c, 2c+1,   n = q + 8  (b0, columns 8-15)
//   nibbles 3/7: k = 2c+8, 2c+9, n = q + 8  (b1, columns 8-15)
// Stored values are q (0..15); the kernel subtracts 8.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "kernels/w4a16/w4a16_shape.h"

namespace vt::kernels {

struct GptqTensors {
  int k = 0;                         // input features
  int n = 0;                         // output features
  int bits = 4;
  int group_size = 128;              // -1: one group over all of K
  bool sym = true;
  bool desc_act = false;
  std::span<const int32_t> qweight;  // [k / 8, n]
  std::span<const int32_t> qzeros;   // [groups, n / 8]
  std::span<const uint16_t> scales;  // [groups, n] fp16 bits
  std::span<const int32_t> g_idx;    // [k] or empty
};

struct W4A16Weights {
  int k = 0;
  int n = 0;
  int group_size = 0;               // > 0; k itself for per-channel checkpoints
  std::vector<uint32_t> packed;     // k * n / 8 words in the tile layout above
  std::vector<uint16_t> scales;     // [k / group_size, n] bf16 bits
};

// Whether vt runs a GPTQ variant: 4 bits, symmetric, no act-order, group 128, -1 or K.
Status CheckGptqVariant(int bits, int group_size, bool sym, bool desc_act, int k);

// Every check RepackGptq makes, without repacking: the variant, the shape, the tensors' sizes,
// symmetric zero points, a trivial g_idx and finite scales. Errors name the offending property.
Status ValidateGptq(const GptqTensors& t);

// Validates a GPTQ checkpoint's quantisation (4 bits, symmetric, no act-order, trivial g_idx,
// group 128 or -1) and repacks it. Errors name the offending property.
Result<W4A16Weights> RepackGptq(const GptqTensors& t);

// The quantised value q (0..15) of weight (k, n) in vt's tile layout.
int PackedNibble(const W4A16Weights& w, int k, int n);

// The parts side by side along N, as one [k, sum n] weight: a fused projection (q|k|v, gate|up) is
// then one GEMM. The tile layout is 16-column-block major, so the packed words simply follow
// each other; the scale rows interleave. Parts must agree on k and group size.
Result<W4A16Weights> ConcatColumns(std::span<const W4A16Weights* const> parts);

// Seeded random weights of a shape, for `--load-format dummy` of a GPTQ preset: uniform q and
// scales giving a weight variance of about 1/k, so activations stay of order one through depth.
W4A16Weights RandomW4A16Weights(int k, int n, int group_size, uint64_t seed);

// fp16 bits -> float (scales of GPTQ checkpoints are fp16).
float HalfToFloat(uint16_t h);

}  // namespace vt::kernels
