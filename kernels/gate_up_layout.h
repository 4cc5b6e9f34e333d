// How the CUDA forward lays out a dense fused gate/up weight: gate and up rows interleaved in
// blocks of kGateUpBlock (gate rows 0-3, up rows 0-3, gate rows 4-7, ...), so the decode GEMM's
// CTA, which owns eight consecutive output columns, holds four gate outputs beside their four up
// outputs and applies SiLU·mul before it writes (no gate/up round trip, one kernel fewer per layer).
#pragma once

namespace vt::kernels {

inline constexpr int kGateUpBlock = 4;

enum class GateUpLayout {
  kConcatenated,  // every gate row, then every up row (the int4 weights)
  kInterleaved,   // blocks of kGateUpBlock rows, alternating (dense weights)
};

// Where gate output i and up output i sit in a [2 inter] gate/up row.
constexpr int GateColumn(GateUpLayout layout, int i) {
  return layout == GateUpLayout::kConcatenated ? i : (i / kGateUpBlock) * 2 * kGateUpBlock + i % kGateUpBlock;
}
constexpr int UpColumn(GateUpLayout layout, int inter, int i) {
  return layout == GateUpLayout::kConcatenated ? inter + i : GateColumn(layout, i) + kGateUpBlock;
}

}  // namespace vt::kernels
