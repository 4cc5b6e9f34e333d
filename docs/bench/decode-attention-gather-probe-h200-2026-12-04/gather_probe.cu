// How fast can K/V be streamed from vt's paged cache when nothing is computed on it? A probe, not
// part of vt: qwen3-1.7b decode at batch 8, 8k keys (8 KV heads, head_dim 128, 16-key pages,
// pages shuffled: 268 MB of K + V), read by warps that each run their own cp.async ring of stages
// (the persist arm's per-warp pipeline), with the warps per CTA, the CTAs per SM, the keys per
// stage and the stages varied, beside a contiguous read of the same bytes and a register-only read.
// The persist arm's loads alone take 79-81 us on this call and cuDNN's complete attention 67.2 us
// (docs/BENCHMARKS.md, "its loads measured alone").
//
// nvcc -O3 -std=c++17 -arch=sm_90 -o gather_probe gather_probe.cu && ./gather_probe
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

namespace {

constexpr int kD = 128, kHeads = 8, kPage = 16, kBatch = 8, kContext = 8192;
constexpr int kPagesPerRequest = kContext / kPage;
constexpr int kPages = kBatch * kPagesPerRequest;
constexpr int64_t kCacheElems = int64_t(kPages) * kPage * kHeads * kD;
constexpr int kSms = 132;
constexpr int kSmemPerSm = 233472;  // 228 KB; each CTA also reserves 1 KB

#define CHECK(x)                                                                  \
  do {                                                                            \
    cudaError_t e = (x);                                                          \
    if (e != cudaSuccess) {                                                       \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      std::exit(1);                                                               \
    }                                                                             \
  } while (0)

__device__ __forceinline__ void CpAsync16(void* dst_smem, const void* src) {
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(dst_smem));
  asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;\n" ::"r"(dst), "l"(src));
}
__device__ __forceinline__ void Commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void WaitGroup() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

// A unit is `kKeys` keys of one (request, KV head): its K rows and V rows. Units are numbered
// request-major, then head, then key position, and each warp of the grid streams an equal run.
template <int kKeys, int kStages, bool kPaged>
__global__ void WarpRings(const uint16_t* k, const uint16_t* v, const int* table, uint32_t* sink) {
  constexpr int kUnitsPerHead = kContext / kKeys;
  constexpr int64_t kUnits = int64_t(kBatch) * kHeads * kUnitsPerHead;
  constexpr int kStageElems = 2 * kKeys * kD;
  constexpr int kCopies = kKeys * (kD / 8) / 32;  // per lane, for K and again for V
  extern __shared__ __align__(16) uint16_t smem[];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int64_t warps = int64_t(gridDim.x) * (blockDim.x / 32);
  const int64_t gw = int64_t(blockIdx.x) * (blockDim.x / 32) + warp;
  const int64_t first = gw * kUnits / warps, last = (gw + 1) * kUnits / warps;
  uint16_t* ring = smem + warp * kStages * kStageElems;

  auto issue = [&](int64_t u, int stage) {
    const int b = int(u / (kHeads * kUnitsPerHead));
    const int h = int(u / kUnitsPerHead % kHeads);
    const int key = int(u % kUnitsPerHead) * kKeys;
    uint16_t* dst = ring + stage * kStageElems;
    // A unit spans one page, or two at 32 keys: its page ids are read once, as the persist arm does.
    const int* pages = table + b * kPagesPerRequest + key / kPage;
    const int page0 = kPaged ? __ldg(pages) : 0;
    const int page1 = kPaged && kKeys > kPage ? __ldg(pages + 1) : 0;
#pragma unroll
    for (int n = 0; n < kCopies; ++n) {
      const int piece = n * 32 + lane, r = piece / (kD / 8), chunk = piece % (kD / 8);
      const int pos = key + r;
      int64_t off;
      if (kPaged) {
        const int page = r < kPage ? page0 : page1;
        off = ((int64_t(page) * kPage + pos % kPage) * kHeads + h) * kD + chunk * 8;
      } else {  // the same bytes, each (request, head) one contiguous stream
        off = ((int64_t(b) * kHeads + h) * kContext + pos) * kD + chunk * 8;
      }
      CpAsync16(dst + r * kD + ((chunk ^ (r & 7)) << 3), k + off);
      CpAsync16(dst + kKeys * kD + r * kD + ((chunk ^ (r & 7)) << 3), v + off);
    }
  };

  uint32_t acc = 0;
  int64_t next = first;
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (next < last) issue(next++, s);
    Commit();
  }
  for (int64_t u = first, i = 0; u < last; ++u, ++i) {
    if (next < last) issue(next++, int((i + kStages - 1) % kStages));
    Commit();
    WaitGroup<kStages - 1>();
    __syncwarp();
    acc ^= reinterpret_cast<const uint32_t*>(ring + (i % kStages) * kStageElems)[lane * 67 % (kStageElems / 2)];
    __syncwarp();
  }
  WaitGroup<0>();
  sink[gw * 32 + lane] = acc;
}

// The bytes as one flat array each, read into registers, 4 x 16 bytes in flight a thread.
__global__ void RegisterRead(const uint4* k, const uint4* v, int64_t n, uint32_t* sink) {
  uint32_t acc = 0;
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += 2 * stride) {
    uint4 a = k[i], b = v[i], c = {0, 0, 0, 0}, d = {0, 0, 0, 0};
    if (i + stride < n) {
      c = k[i + stride];
      d = v[i + stride];
    }
    acc ^= a.x ^ b.y ^ c.z ^ d.w;
  }
  sink[int64_t(blockIdx.x) * blockDim.x + threadIdx.x] = acc;
}

struct Buffers {
  uint16_t *k, *v;
  int* table;
  uint32_t* sink;
};

template <typename Launch>
float TimeUs(Launch launch) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) launch();
  CHECK(cudaGetLastError());
  constexpr int kReps = 20;
  CHECK(cudaEventRecord(a));
  for (int i = 0; i < kReps; ++i) launch();
  CHECK(cudaEventRecord(b));
  CHECK(cudaEventSynchronize(b));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, a, b));
  return ms * 1000 / kReps;
}

template <int kKeys, int kStages, bool kPaged>
void RunRings(const Buffers& buf, int warps_per_cta, int ctas_per_sm) {
  const size_t need = size_t(warps_per_cta) * kStages * 2 * kKeys * kD * 2;
  const size_t alloc = size_t(kSmemPerSm / ctas_per_sm - 1024 - 16);
  if (need > alloc || alloc > 232448) return;
  auto kernel = WarpRings<kKeys, kStages, kPaged>;
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(alloc)));
  int resident = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, warps_per_cta * 32, alloc));
  const int grid = kSms * ctas_per_sm;
  const float us = TimeUs([&] { kernel<<<grid, warps_per_cta * 32, alloc>>>(buf.k, buf.v, buf.table, buf.sink); });
  const double bytes = 2.0 * kCacheElems * 2;
  std::printf("rings,%s,%d,%d,%d,%d,%d,%zu,%.1f,%.0f\n", kPaged ? "paged" : "contiguous", kKeys, kStages,
              warps_per_cta, ctas_per_sm, resident, size_t(ctas_per_sm) * need / 1024, us, bytes / us / 1e3);
}

template <int kKeys, int kStages>
void RunBoth(const Buffers& buf) {
  for (int warps : {4, 8, 16}) {
    for (int ctas : {1, 2, 3, 4}) {
      RunRings<kKeys, kStages, true>(buf, warps, ctas);
      RunRings<kKeys, kStages, false>(buf, warps, ctas);
    }
  }
}

}  // namespace

int main() {
  Buffers buf;
  CHECK(cudaMalloc(&buf.k, kCacheElems * 2));
  CHECK(cudaMalloc(&buf.v, kCacheElems * 2));
  CHECK(cudaMalloc(&buf.table, kPages * sizeof(int)));
  CHECK(cudaMalloc(&buf.sink, size_t(1) << 24));
  CHECK(cudaMemset(buf.k, 1, kCacheElems * 2));
  CHECK(cudaMemset(buf.v, 2, kCacheElems * 2));
  std::vector<int> pages(kPages);
  std::iota(pages.begin(), pages.end(), 0);
  std::shuffle(pages.begin(), pages.end(), std::mt19937(7));
  CHECK(cudaMemcpy(buf.table, pages.data(), pages.size() * sizeof(int), cudaMemcpyHostToDevice));

  const double bytes = 2.0 * kCacheElems * 2;
  std::printf("# %0.f MB of K + V; persist loads-only 79-81 us, cuDNN attention 67.2 us on this call\n", bytes / 1e6);
  const float copy_us = TimeUs([&] { CHECK(cudaMemcpyAsync(buf.v, buf.k, kCacheElems * 2, cudaMemcpyDeviceToDevice)); });
  std::printf("memcpy,%0.f MB read + written,%.1f us,%.0f GB/s (read+write)\n", kCacheElems * 2 / 1e6, copy_us,
              2.0 * kCacheElems * 2 / copy_us / 1e3);
  for (int threads : {256, 512, 1024}) {
    for (int per_sm : {1, 2, 4, 8}) {
      if (threads * per_sm > 2048) continue;
      const int grid = kSms * per_sm;
      const int64_t n = kCacheElems * 2 / 16;
      const float us = TimeUs([&] {
        RegisterRead<<<grid, threads>>>(reinterpret_cast<const uint4*>(buf.k), reinterpret_cast<const uint4*>(buf.v), n,
                                        buf.sink);
      });
      std::printf("registers,%d threads x %d CTAs/SM,%.1f us,%.0f GB/s\n", threads, per_sm, us, bytes / us / 1e3);
    }
  }
  std::printf("form,layout,keys,stages,warps/CTA,CTAs/SM,resident,KB staged/SM,us,GB/s\n");
  RunBoth<16, 2>(buf);
  RunBoth<16, 3>(buf);
  RunBoth<16, 4>(buf);
  RunBoth<16, 6>(buf);
  RunBoth<8, 2>(buf);
  RunBoth<8, 4>(buf);
  RunBoth<8, 8>(buf);
  RunBoth<32, 2>(buf);
  RunBoth<32, 3>(buf);
  CHECK(cudaDeviceSynchronize());
  return 0;
}
