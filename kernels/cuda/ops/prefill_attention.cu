#include "kernels/cuda/ops/prefill_attention.h"

#include <string>

#include "kernels/cuda/attention/paged_decode.h"
#include "kernels/device_alignment.h"

namespace vt::kernels::cuda {
namespace {

// One CTA per token: its sequence's block-table row into the token's row, and its context.
__global__ void GatherTablesKernel(const int32_t* seq_of_token, const int32_t* positions, const int32_t* tables,
                                   int max_blocks, int32_t* token_tables, int32_t* contexts) {
  const int t = blockIdx.x;
  const int64_t seq = seq_of_token[t];
  for (int j = threadIdx.x; j < max_blocks; j += blockDim.x) {
    token_tables[static_cast<int64_t>(t) * max_blocks + j] = tables[seq * max_blocks + j];
  }
  if (threadIdx.x == 0) contexts[t] = positions[t] + 1;
}

DecodeShape ShapeOf(const PrefillAttentionParams& p) {
  return {p.tokens, p.num_q_heads, p.num_kv_heads, p.head_dim, p.block_size, p.max_context};
}

}  // namespace

PagedDecodeParams AsDecodeParams(const PrefillAttentionParams& p, const int32_t* token_tables,
                                 const int32_t* context_lens) {
  PagedDecodeParams d;
  d.q = p.q;
  d.k_cache = p.k_cache;
  d.v_cache = p.v_cache;
  d.block_tables = token_tables;
  d.context_lens = context_lens;
  d.out = p.out;
  d.batch = p.tokens;
  d.num_q_heads = p.num_q_heads;
  d.num_kv_heads = p.num_kv_heads;
  d.head_dim = p.head_dim;
  d.block_size = p.block_size;
  d.max_blocks_per_seq = p.max_blocks_per_seq;
  d.scale = p.scale;
  return d;
}

size_t PrefillWorkspaceBytes(const PrefillAttentionParams& p, const DecodePlan& plan) {
  return AlignToDevice(size_t(p.tokens) * p.max_blocks_per_seq * 4) + AlignToDevice(size_t(p.tokens) * 4) +
         DecodeWorkspaceBytes(ShapeOf(p), plan);
}

Status RunPrefillAttention(const PrefillAttentionParams& p, const DecodePlan& plan, void* workspace,
                           cudaStream_t stream) {
  if (p.tokens == 0) return Status::Ok();
  if (workspace == nullptr) return InvalidArgument("prefill attention needs a workspace");
  auto* base = static_cast<unsigned char*>(workspace);
  auto* token_tables = reinterpret_cast<int32_t*>(base);
  auto* contexts = reinterpret_cast<int32_t*>(base + AlignToDevice(size_t(p.tokens) * p.max_blocks_per_seq * 4));
  void* decode_ws = base + AlignToDevice(size_t(p.tokens) * p.max_blocks_per_seq * 4) + AlignToDevice(size_t(p.tokens) * 4);
  GatherTablesKernel<<<p.tokens, 128, 0, stream>>>(p.seq_of_token, p.positions, p.block_tables, p.max_blocks_per_seq,
                                                   token_tables, contexts);
  if (cudaError_t err = cudaGetLastError(); err != cudaSuccess) {
    return Internal(std::string("prefill attention gather: ") + cudaGetErrorString(err));
  }
  return RunPagedDecode(AsDecodeParams(p, token_tables, contexts), plan, decode_ws, stream);
}

}  // namespace vt::kernels::cuda
