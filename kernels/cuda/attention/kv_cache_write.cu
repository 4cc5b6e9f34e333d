#include "kernels/cuda/attention/kv_cache_write.h"

#include <string>

namespace vt::kernels::cuda {
namespace {

// One thread per 16-byte piece of a token's K and V rows (all heads of a token are contiguous
// in both the source and the page slot).
__global__ void WriteKvKernel(KvWriteParams p) {
  const int pieces_per_token = p.num_kv_heads * p.head_dim / 8;
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= static_cast<int64_t>(p.num_tokens) * pieces_per_token) return;
  const int token = static_cast<int>(i / pieces_per_token);
  const int piece = static_cast<int>(i % pieces_per_token);
  const int64_t slot = p.slots[token];
  if (slot < 0) return;
  const int64_t src = (static_cast<int64_t>(token) * pieces_per_token + piece) * 8;
  const int64_t dst = (slot * pieces_per_token + piece) * 8;
  *reinterpret_cast<uint4*>(p.k_cache + dst) = *reinterpret_cast<const uint4*>(p.k + src);
  *reinterpret_cast<uint4*>(p.v_cache + dst) = *reinterpret_cast<const uint4*>(p.v + src);
}

}  // namespace

Status WriteKvCache(const KvWriteParams& p, cudaStream_t stream) {
  if (p.head_dim % 8 != 0) return InvalidArgument("kv write: head_dim must be a multiple of 8");
  if (p.num_tokens == 0) return Status::Ok();
  const int64_t threads = static_cast<int64_t>(p.num_tokens) * p.num_kv_heads * p.head_dim / 8;
  const int block = 256;
  WriteKvKernel<<<static_cast<unsigned>((threads + block - 1) / block), block, 0, stream>>>(p);
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return Internal(std::string("kv write: ") + cudaGetErrorString(err));
  return Status::Ok();
}

}  // namespace vt::kernels::cuda
