// Which decode-attention arm runs for a shape, and how the KV sequence is split.
// Pure C++ (no CUDA types) so the policy is unit-tested on machines without a GPU.
//
// Arms:
//   block  generic kernel, one CTA per (request, query head), tile loop over keys
//   warp   warp-split kernel, one warp per key row (EPL 4 at head_dim 128, EPL 8 at 256)
//   warp2  warp-split with two rows per warp at head_dim 128 (EPL 8, 16-byte loads)
//   gqa    one CTA per (request, KV head) serving all its query heads with tensor-core MMAs
//   persist  the gqa arithmetic on one wave of persistent CTAs, each streaming an equal share of
//          the batch's (request, KV head, chunk) items; bitwise the gqa arm's results
//   solo   the persist arm with a warp, not a CTA, per item (head_dim 128): no barrier or
//          cross-warp merge per item; bitwise the gqa arm's results too
//
// Default policy: an arm becomes the default for a shape only after the model-level
// token-exact gate passes on it. All five passed on an H200 (docs/BENCHMARKS.md, issues #10 and
// #17); `auto` resolves to the fastest measured there, `persist` (equal to gqa at batch 1, faster
// from batch 8), for every shape it supports, else to `block`, split by context (auto) unless
// VT_ATTN_SPLIT says off or a fixed chunk. The others run when forced (the engine's VT_ATTN_DECODE);
// solo, built after the last measurement, is not yet measured on a GPU and runs only when forced.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"
#include "kernels/cuda/attention/decode_params.h"

namespace vt::kernels::cuda {

enum class DecodeArm { kAuto, kBlock, kWarp, kWarpTwoRows, kGqa, kPersistent, kSolo };

const char* DecodeArmName(DecodeArm arm);

struct DecodeShape {
  int batch = 0;
  int num_q_heads = 0;
  int num_kv_heads = 0;
  int head_dim = 0;
  int block_size = 0;
  int max_context = 0;  // the longest context this call may see (sets the chunk count)
};

// Which arm and split a caller asks for. split_tokens: 0 = off, kSplitAuto = auto (each
// request's chunk length follows from its own context: ChunkTokensForContext), else a fixed
// chunk length in tokens (a positive multiple of the block size). The parsed default (split
// unset) is auto; a default-constructed DecodeOverrides is unsplit.
struct DecodeOverrides {
  DecodeArm arm = DecodeArm::kAuto;
  int split_tokens = 0;
};

inline constexpr int kSplitAuto = -1;

// The most keys (batch x max_context) a persist- or solo-arm call may cover: their schedule is a
// 32-bit prefix sum of the requests' weights, at most one a key (six for a request under 11 keys).
// Past it `auto` runs the gqa arm (bitwise the same results).
inline constexpr int64_t kMaxPersistentKeys = (int64_t(1) << 31) - 1;

// Parses an arm name and a split setting (nullptr or "" means unset: arm auto, split auto). The
// engine's runner options feed it VT_ATTN_DECODE and VT_ATTN_SPLIT; `vt bench attention` its flags.
Result<DecodeOverrides> ParseDecodeOverrides(const char* arm, const char* split);

struct DecodePlan {
  DecodeArm arm = DecodeArm::kBlock;
  int chunk_tokens = 0;    // 0 when unsplit, kChunkByContext for auto, else fixed
  int num_chunks = 1;      // the grid's chunk dimension
  int chunks_per_cta = 0;  // GQA arm launch geometry; 0 lets the launcher choose
};

// How many consecutive chunks one GQA CTA serves: enough CTAs for two waves over
// `resident_ctas` slots, the rest folded into longer CTAs (at most 8 chunks), split evenly.
int ChunksPerCta(int kv_pairs, int num_chunks, int resident_ctas);

// Whether `arm` supports `shape` (head_dim, group size); the reason when not.
Status CheckArmSupports(DecodeArm arm, const DecodeShape& shape);

// Resolves the overrides for one shape. A forced arm that cannot run the shape is an error,
// never a silent fallback: a same-binary A/B must measure what it names.
Result<DecodePlan> PlanDecode(const DecodeShape& shape, const DecodeOverrides& overrides);

}  // namespace vt::kernels::cuda
