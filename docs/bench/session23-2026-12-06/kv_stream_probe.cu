// A probe, not part of vt: how fast can a decode-attention schedule stream a paged KV cache when it
// does nothing with the data? The third session of 2026-12-04 measured the persist arm's loads alone
// (its per-warp schedule: each of four warps streams its own 16-key K + V subtile, two cp.async stages,
// three CTAs an SM) at 75-80% of the copy ceiling on qwen3-1.7b B8 8k, where cuDNN's whole attention
// reaches 94%, and named the next question: does a schedule that keeps more bytes in flight per SM
// (a producer warp filling whole tiles ahead) stream faster? This answers it before any kernel is built.
//
// The cache is vt's: K and V pools of [blocks, 16 slots, kv_heads, 128] bf16, each request's pages
// shuffled. Work is vt's persist-arm split: (request, KV head, 512-key chunk) items, each CTA an equal
// run of them. Schedules:
//   warp   S: the persist arm's loads: four warps, each its own 16-key subtiles (one page of K and of V,
//             8 KB) by 16-byte cp.async, S stages a warp, waiting for the oldest;
//   tma    S: one producer warp issues TMA tile copies (cp.async.bulk.tensor, one 16-row box of K and
//             one of V a page) into a ring of S stages of 64 keys (32 KB) shared by the CTA; four
//             consumer warps wait on each stage's full barrier and release it;
//   tma128 S: as tma with 128-key stages (64 KB);
//   ring   S: as tma, the producer warp's 32 lanes filling each stage with 16-byte cp.async copies
//             (completion through cp.async.mbarrier.arrive) instead of TMA: the ring without TMA;
//   tmasw  S: as tma with 64-column boxes in the 128-byte swizzle (what ldmatrix would read without bank
//             conflicts): four TMA copies a page instead of two.
// CTAs an SM follow from shared memory (occupancy API). Each timing is the median of 20 CUDA-event-timed
// calls after 3 warm-ups. The read ceiling is a grid-stride 16-byte read of the same bytes; the copy
// ceiling is vt's (cudaMemcpy device to device, read + write bytes over time).
//
// The numbers in docs/BENCHMARKS.md are from this file at 1abcbb4; the stage walk was folded into
// ForEachStage and the page copies into CopyPage after the run (the same copies, stages and order).
//
// Build: nvcc -O3 -std=c++17 -arch=sm_90a -o kv_stream_probe kv_stream_probe.cu -lcuda
// Run:   ./kv_stream_probe            (qwen3-1.7b / llama3-8b shapes: 8 KV heads, head_dim 128)
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#define CHECK(x)                                                                             \
  do {                                                                                       \
    cudaError_t e_ = (x);                                                                    \
    if (e_ != cudaSuccess) {                                                                 \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                          \
    }                                                                                        \
  } while (0)

constexpr int kD = 128, kSlots = 16, kChunk = 512, kHeads = 8;
constexpr int kPageBytes = kSlots * kD * 2;  // one head's rows of one page: 4 KB

struct Work {
  const int* tables;  // [batch][pages_per_seq]
  int pages_per_seq, batch, context, chunks, items;
  const uint16_t* k;
  const uint16_t* v;
  int* errors;  // non-null: the consumers check what landed (a box in the wrong place would read nothing)
};

// What the pools hold: K and V elements are functions of their row (page * 16 + slot) and column
// (head * 128 + dim), so a consumer can check what landed where.
__host__ __device__ inline uint16_t KAt(int64_t row, int col) { return uint16_t(row * 31 + col); }
__global__ void FillK(uint16_t* k, int64_t rows) {
  const int64_t n = rows * kHeads * kD;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    k[i] = KAt(i / (kHeads * kD), int(i % (kHeads * kD)));
  }
}

__device__ void ItemAt(const Work& w, int item, int& b, int& h, int& k0, int& k1) {
  b = item / (kHeads * w.chunks);
  h = item / w.chunks % kHeads;
  const int c = item % w.chunks;
  k0 = c * kChunk;
  k1 = min(w.context, k0 + kChunk);
}

// Calls visit(n, b, h, s0, k1) for each kStageKeys-key stage [s0, min(s0 + kStageKeys, k1)) of items
// [i0, i1), n counting the stages: what the producer fills and the consumers wait for, in one order.
template <int kStageKeys, class Visit>
__device__ void ForEachStage(const Work& w, int i0, int i1, Visit&& visit) {
  int n = 0;
  for (int item = i0; item < i1; ++item) {
    int b, h, k0, k1;
    ItemAt(w, item, b, h, k0, k1);
    for (int s0 = k0; s0 < k1; s0 += kStageKeys, ++n) visit(n, b, h, s0, k1);
  }
}

__device__ uint32_t SmemAddr(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }

// The warp's 16-byte cp.async copies of one page's 16 rows of KV head h, K into k_dst and V into v_dst
// (each 4 KB, rows in order): what the persist arm's warps issue for a subtile.
__device__ void CopyPage(const Work& w, int page, int h, int lane, unsigned char* k_dst, unsigned char* v_dst) {
  const uint16_t* ks = w.k + (int64_t(page) * kSlots * kHeads + h) * kD;
  const uint16_t* vs = w.v + (int64_t(page) * kSlots * kHeads + h) * kD;
  for (int i = lane; i < kSlots * kD / 8; i += 32) {  // 16-byte pieces of the page's 16 rows
    const int row = i / (kD / 8), piece = i % (kD / 8);
    const int64_t off = int64_t(row) * kHeads * kD + piece * 8;
    asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;" ::"r"(SmemAddr(k_dst + i * 16)), "l"(ks + off));
    asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;" ::"r"(SmemAddr(v_dst + i * 16)), "l"(vs + off));
  }
}

// ---- warp: the persist arm's per-warp subtiles ----
template <int S>
__global__ void __launch_bounds__(128) WarpStream(Work w) {
  extern __shared__ __align__(1024) unsigned char smem[];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  unsigned char* mine = smem + warp * S * 2 * kPageBytes;
  const int i0 = int(int64_t(blockIdx.x) * w.items / gridDim.x), i1 = int(int64_t(blockIdx.x + 1) * w.items / gridDim.x);
  // As the persist arm walks: every warp the same cursor of (item, 64-key iteration); warp `warp`
  // takes subtile iter * 4 + warp of it, and commits a copy group each iteration, empty or not.
  struct Cursor {
    int item, iter, iters, b, h, k0, k1;
  };
  auto enter = [&](Cursor& c) {
    if (c.item >= i1) return;
    ItemAt(w, c.item, c.b, c.h, c.k0, c.k1);
    c.iter = 0;
    c.iters = (c.k1 - c.k0 + 63) / 64;
  };
  auto step = [&](Cursor& c) {
    if (++c.iter >= c.iters) ++c.item, enter(c);
  };
  auto issue = [&](const Cursor& c, int stage) {
    const int key = c.k0 + (c.iter * 4 + warp) * kSlots;
    if (key >= c.k1) return;
    unsigned char* dst = mine + stage * 2 * kPageBytes;
    CopyPage(w, w.tables[c.b * w.pages_per_seq + key / kSlots], c.h, lane, dst, dst + kPageBytes);
  };
  Cursor produce{i0}, consume{i0};
  enter(produce);
  enter(consume);
  for (int s = 0; s < S - 1; ++s) {
    if (produce.item < i1) issue(produce, s), step(produce);
    asm volatile("cp.async.commit_group;");
  }
  for (int i = 0; consume.item < i1; ++i) {
    if (produce.item < i1) issue(produce, (i + S - 1) % S), step(produce);
    asm volatile("cp.async.commit_group;");
    asm volatile("cp.async.wait_group %0;" ::"n"(S - 1));
    __syncwarp();
    const int key = consume.k0 + (consume.iter * 4 + warp) * kSlots;
    if (w.errors != nullptr && key < consume.k1 && lane < kSlots) {  // each row's first element
      const int page = w.tables[consume.b * w.pages_per_seq + key / kSlots];
      const uint16_t got = *reinterpret_cast<const uint16_t*>(mine + (i % S) * 2 * kPageBytes + lane * kD * 2);
      if (got != KAt(int64_t(page) * kSlots + lane, consume.h * kD)) atomicAdd(w.errors, 1);
    }
    step(consume);
  }
  asm volatile("cp.async.wait_all;");
}

// ---- tma: a producer warp and a ring of whole-CTA stages ----
__device__ void BarInit(uint64_t* bar, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(SmemAddr(bar)), "r"(count));
}
__device__ void BarArrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(SmemAddr(bar)) : "memory");
}
__device__ void BarExpect(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(SmemAddr(bar)), "r"(bytes) : "memory");
}
__device__ void BarWait(uint64_t* bar, uint32_t parity) {
  uint32_t done = 0;
  while (!done) {
    asm volatile(
        "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
        : "=r"(done)
        : "r"(SmemAddr(bar)), "r"(parity)
        : "memory");
  }
}
__device__ void TmaLoad(void* dst, const CUtensorMap* map, int x, int y, uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
          SmemAddr(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(x), "r"(y), "r"(SmemAddr(bar))
      : "memory");
}

// Box columns: 128 (one copy a page, no swizzle) or 64 (two, 128-byte swizzle).
template <int S, int kBoxCols, int kStageKeys, bool kLaneCopies = false>
__global__ void __launch_bounds__(160) TmaStream(Work w, const __grid_constant__ CUtensorMap kmap,
                                                 const __grid_constant__ CUtensorMap vmap) {
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  unsigned char* smem = reinterpret_cast<unsigned char*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));
  constexpr int kStageBytes = 2 * (kStageKeys / kSlots) * kPageBytes;  // 32 KB a 64-key stage
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + S * kStageBytes);
  uint64_t* empty = full + S;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    for (int s = 0; s < S; ++s) BarInit(&full[s], kLaneCopies ? 32 : 1), BarInit(&empty[s], 4);
    asm volatile("fence.mbarrier_init.release.cluster;");
  }
  __syncthreads();
  const int i0 = int(int64_t(blockIdx.x) * w.items / gridDim.x), i1 = int(int64_t(blockIdx.x + 1) * w.items / gridDim.x);
  // The CTA's stages: each item's keys in kStageKeys-key stages (ForEachStage).
  if (warp == 4) {  // producer
    if (!kLaneCopies && lane != 0) return;
    ForEachStage<kStageKeys>(w, i0, i1, [&](int n, int b, int h, int s0, int k1) {
      const int stage = n % S;
      if (n >= S) BarWait(&empty[stage], ((n / S) - 1) & 1);
      const int pages = min(kStageKeys, k1 - s0 + kSlots - 1) / kSlots;
      unsigned char* dst = smem + stage * kStageBytes;
      if (kLaneCopies) {  // the whole warp's 16-byte cp.async copies, tracked by the full barrier
        for (int p = 0; p < pages; ++p) {
          unsigned char* d = dst + p * kPageBytes;
          CopyPage(w, w.tables[b * w.pages_per_seq + s0 / kSlots + p], h, lane, d, d + kStageBytes / 2);
        }
        asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(SmemAddr(&full[stage])) : "memory");
        return;
      }
      constexpr int kCopies = kD / kBoxCols;
      BarExpect(&full[stage], uint32_t(2 * pages * kPageBytes));
      for (int p = 0; p < pages; ++p) {
        const int page = w.tables[b * w.pages_per_seq + s0 / kSlots + p];
        for (int c = 0; c < kCopies; ++c) {
          const int x = h * kD + c * kBoxCols, y = page * kSlots;
          TmaLoad(dst + (p * kCopies + c) * (kPageBytes / kCopies), &kmap, x, y, &full[stage]);
          TmaLoad(dst + kStageBytes / 2 + (p * kCopies + c) * (kPageBytes / kCopies), &vmap, x, y, &full[stage]);
        }
      }
    });
    if (kLaneCopies) asm volatile("cp.async.wait_all;");
    return;
  }
  // consumers: every warp waits for each stage and releases it
  ForEachStage<kStageKeys>(w, i0, i1, [&](int n, int b, int h, int s0, int k1) {
    const int stage = n % S;
    BarWait(&full[stage], (n / S) & 1);
    __syncwarp();
    if (w.errors != nullptr && lane < kSlots) {  // each page's rows, first element (column 0 of the box)
      const unsigned char* base = smem + stage * kStageBytes;
      for (int p = warp; p < min(kStageKeys, k1 - s0 + kSlots - 1) / kSlots; p += 4) {
        const int page = w.tables[b * w.pages_per_seq + s0 / kSlots + p];
        // A 64-column box is 128-byte rows whose 16-byte pieces are XOR-swizzled by row % 8.
        const int at = kBoxCols == 64 ? p * kPageBytes + lane * 128 + ((lane % 8) * 16) : p * kPageBytes + lane * kD * 2;
        const uint16_t got = *reinterpret_cast<const uint16_t*>(base + at);
        if (got != KAt(int64_t(page) * kSlots + lane, h * kD)) atomicAdd(w.errors, 1);
      }
    }
    if (lane == 0) BarArrive(&empty[stage]);
  });
}

// ---- ceilings ----
__global__ void ReadAll(const uint4* p, int64_t n, uint4* sink) {
  uint4 acc = make_uint4(0, 0, 0, 0);
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const uint4 x = __ldcs(p + i);
    acc.x ^= x.x, acc.y ^= x.y, acc.z ^= x.z, acc.w ^= x.w;
  }
  if ((acc.x & acc.y & acc.z & acc.w) == 0xdeadbeefu) *sink = acc;
}

template <class F>
double MedianUs(F&& launch) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) launch();
  CHECK(cudaDeviceSynchronize());
  std::vector<float> ms;
  for (int i = 0; i < 20; ++i) {
    CHECK(cudaEventRecord(a));
    launch();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float t;
    CHECK(cudaEventElapsedTime(&t, a, b));
    ms.push_back(t);
  }
  CHECK(cudaGetLastError());
  std::sort(ms.begin(), ms.end());
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return ms[ms.size() / 2] * 1e3;
}

CUtensorMap MakeMap(const void* pool, int blocks, int box_cols) {
  CUtensorMap map;
  const cuuint64_t dims[2] = {cuuint64_t(kHeads) * kD, cuuint64_t(blocks) * kSlots};
  const cuuint64_t strides[1] = {cuuint64_t(kHeads) * kD * 2};
  const cuuint32_t box[2] = {cuuint32_t(box_cols), kSlots}, elem[2] = {1, 1};
  const CUresult r = cuTensorMapEncodeTiled(
      &map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<void*>(pool), dims, strides, box, elem,
      CU_TENSOR_MAP_INTERLEAVE_NONE, box_cols == 64 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_NONE,
      CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled failed: %d\n", int(r));
    std::exit(1);
  }
  return map;
}

template <class K>
int Grid(K kernel, int threads, size_t smem, int sms) {
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  int per_sm = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem));
  return per_sm * sms;
}

int main() {
  int sms;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device %s, %d SMs\n", prop.name, sms);
  double copy_gbps;
  {
    const size_t bytes = size_t(2) << 30;
    void *a, *b;
    CHECK(cudaMalloc(&a, bytes));
    CHECK(cudaMalloc(&b, bytes));
    CHECK(cudaMemset(a, 1, bytes));
    copy_gbps = 2.0 * bytes / MedianUs([&] { CHECK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice)); }) / 1e3;
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
  }
  std::printf("copy ceiling %.0f GB/s\n", copy_gbps);
  const std::pair<int, int> shapes[] = {{1, 8200}, {8, 4100}, {8, 8200}, {8, 16400}, {64, 16400}};
  for (auto [batch, context] : shapes) {
    const int pages_per_seq = (context + kSlots - 1) / kSlots;
    const int blocks = batch * pages_per_seq;
    const size_t pool = size_t(blocks) * kSlots * kHeads * kD * 2;
    void *k, *v;
    CHECK(cudaMalloc(&k, pool));
    CHECK(cudaMalloc(&v, pool));
    FillK<<<sms * 8, 256>>>(static_cast<uint16_t*>(k), int64_t(blocks) * kSlots);
    CHECK(cudaMemset(v, 0x3c, pool));
    std::vector<int> ids(blocks);
    for (int i = 0; i < blocks; ++i) ids[i] = i;
    std::shuffle(ids.begin(), ids.end(), std::mt19937(7));
    int* tables;
    CHECK(cudaMalloc(&tables, ids.size() * 4));
    CHECK(cudaMemcpy(tables, ids.data(), ids.size() * 4, cudaMemcpyHostToDevice));
    int* errors;
    CHECK(cudaMalloc(&errors, 4));
    Work w{tables, pages_per_seq, batch, context, (context + kChunk - 1) / kChunk, 0, static_cast<uint16_t*>(k),
           static_cast<uint16_t*>(v), nullptr};
    w.items = batch * kHeads * w.chunks;
    const double bytes = 2.0 * pool;  // every page of K and V, once
    uint4* sink;
    CHECK(cudaMalloc(&sink, 16));
    const double read_us = MedianUs([&] {
      ReadAll<<<sms * 8, 256>>>(static_cast<const uint4*>(k), int64_t(pool / 16), sink);
      ReadAll<<<sms * 8, 256>>>(static_cast<const uint4*>(v), int64_t(pool / 16), sink);
    });
    std::printf("\nB%d ctx %d: %.1f MB of K+V, %d items; copy-ceiling time %.2f us; read ceiling %.2f us (%.0f GB/s, "
                "two kernels)\n",
                batch, context, bytes / 1e6, w.items, bytes / copy_gbps / 1e3, read_us, bytes / read_us / 1e3);
    // Runs `launch` once with the consumers checking, then times it without.
    auto checked = [&](auto&& launch) {
      Work c = w;
      c.errors = errors;
      CHECK(cudaMemset(errors, 0, 4));
      launch(c);
      int n = 0;
      CHECK(cudaMemcpy(&n, errors, 4, cudaMemcpyDeviceToHost));
      return n;
    };
    auto report = [&](const char* name, int stages, int grid, double us, int wrong) {
      std::printf("  %-6s S=%d grid %4d (%d/SM): %8.2f us  %5.0f GB/s  %5.1f%% of copy  (%s)\n", name, stages, grid,
                  grid / sms, us, bytes / us / 1e3, 100.0 * bytes / us / 1e3 / copy_gbps,
                  wrong == 0 ? "checked" : "WRONG DATA");
    };
    auto warp_run = [&](auto kernel, int stages) {
      const size_t smem = size_t(4) * stages * 2 * kPageBytes;
      const int grid = Grid(kernel, 128, smem, sms);
      const int wrong = checked([&](const Work& c) { kernel<<<grid, 128, smem>>>(c); });
      report("warp", stages, grid, MedianUs([&] { kernel<<<grid, 128, smem>>>(w); }), wrong);
    };
    warp_run(WarpStream<2>, 2);
    warp_run(WarpStream<3>, 3);
    warp_run(WarpStream<4>, 4);
    warp_run(WarpStream<6>, 6);
    const CUtensorMap k128 = MakeMap(k, blocks, 128), v128 = MakeMap(v, blocks, 128);
    const CUtensorMap k64 = MakeMap(k, blocks, 64), v64 = MakeMap(v, blocks, 64);
    auto tma_run = [&](const char* name, auto kernel, int stages, int stage_keys, const CUtensorMap& km,
                       const CUtensorMap& vm) {
      const size_t smem = size_t(stages) * 2 * (stage_keys / kSlots) * kPageBytes + 2 * stages * 8 + 1024;
      const int grid = Grid(kernel, 160, smem, sms);
      const int wrong = checked([&](const Work& c) { kernel<<<grid, 160, smem>>>(c, km, vm); });
      report(name, stages, grid, MedianUs([&] { kernel<<<grid, 160, smem>>>(w, km, vm); }), wrong);
    };
    tma_run("tma", TmaStream<2, 128, 64>, 2, 64, k128, v128);
    tma_run("tma", TmaStream<3, 128, 64>, 3, 64, k128, v128);
    tma_run("tma", TmaStream<4, 128, 64>, 4, 64, k128, v128);
    tma_run("tma", TmaStream<6, 128, 64>, 6, 64, k128, v128);
    tma_run("tma128", TmaStream<3, 128, 128>, 3, 128, k128, v128);
    tma_run("ring", TmaStream<3, 128, 64, true>, 3, 64, k128, v128);
    tma_run("ring", TmaStream<6, 128, 64, true>, 6, 64, k128, v128);
    tma_run("tmasw", TmaStream<3, 64, 64>, 3, 64, k64, v64);
    tma_run("tmasw", TmaStream<6, 64, 64>, 6, 64, k64, v64);
    CHECK(cudaFree(k));
    CHECK(cudaFree(v));
    CHECK(cudaFree(tables));
    CHECK(cudaFree(sink));
    CHECK(cudaFree(errors));
  }
  return 0;
}
