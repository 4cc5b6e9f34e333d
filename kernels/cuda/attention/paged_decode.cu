#include "kernels/cuda/attention/paged_decode.h"

#include <string>

#include "kernels/cuda/attention/decode_launch.h"

namespace vt::kernels::cuda {

size_t DecodeWorkspaceBytes(const DecodeShape& s, const DecodePlan& plan) {
  if (plan.num_chunks <= 1) return 0;
  const size_t slots = size_t(s.batch) * s.num_q_heads * plan.num_chunks;
  return slots * s.head_dim * sizeof(float) + slots * sizeof(float);
}

Status RunPagedDecode(PagedDecodeParams p, const DecodePlan& plan, void* workspace, cudaStream_t stream) {
  p.chunk_tokens = plan.chunk_tokens;
  p.num_chunks = plan.num_chunks;
  p.chunks_per_cta = plan.chunks_per_cta;
  if (plan.num_chunks > 1) {
    if (workspace == nullptr) return InvalidArgument("split-KV decode needs a workspace");
    const size_t slots = size_t(p.batch) * p.num_q_heads * plan.num_chunks;
    p.partial_out = static_cast<float*>(workspace);
    p.partial_lse = p.partial_out + slots * p.head_dim;
  }
  cudaError_t err = cudaSuccess;
  switch (plan.arm) {
    case DecodeArm::kAuto:
    case DecodeArm::kBlock: err = attention::LaunchDecodeBlock(p, stream); break;
    case DecodeArm::kWarp: err = attention::LaunchDecodeWarp(p, stream); break;
    case DecodeArm::kWarpTwoRows: err = attention::LaunchDecodeWarpTwoRows(p, stream); break;
    case DecodeArm::kGqa: err = attention::LaunchDecodeGqa(p, stream); break;
    case DecodeArm::kPersistent: err = attention::LaunchDecodePersistent(p, stream); break;
    case DecodeArm::kSolo: err = attention::LaunchDecodeSolo(p, stream); break;
  }
  if (err == cudaSuccess && plan.num_chunks > 1) err = attention::LaunchMergeChunks(p, stream);
  if (err != cudaSuccess) {
    return Internal(std::string("paged decode (") + DecodeArmName(plan.arm) + "): " + cudaGetErrorString(err));
  }
  return Status::Ok();
}

bool SoloArmRunsItself(int batch, int group) { return attention::SoloRunsItself(batch, group); }

}  // namespace vt::kernels::cuda
