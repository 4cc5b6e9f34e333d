#include "kernels/cuda/bench/prefill_bench.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "base/build_source.h"
#include "kernels/cuda/bench/bench_common.h"
#include "kernels/cuda/device_probe.h"
#include "kernels/cuda/ops/prefill_tc.h"

namespace vt::kernels::cuda {
namespace {

constexpr int kBlockSize = 16;

#define VT_BENCH_CHECK(call)                        \
  do {                                              \
    if (!bench::Check((call), #call)) return false; \
  } while (0)

struct Row {
  std::string shape, kind, mma;
  int context = 0, tokens = 0, splits = 1;
  double us = 0, tflops = 0;
};

// Device buffers of one point, freed on every path out.
struct Buffers {
  std::vector<void*> owned;
  ~Buffers() {
    for (void* p : owned) cudaFree(p);
  }
  template <typename T>
  bool Alloc(T*& p, size_t count) {
    void* raw = nullptr;
    if (!bench::Check(cudaMalloc(&raw, std::max<size_t>(count * sizeof(T), 1)), "cudaMalloc")) return false;
    owned.push_back(raw);
    p = static_cast<T*>(raw);
    return true;
  }
};

// The causal work of `tokens` queries ending at `context`: each query's keys, times 4 D flops
// per query head (2 for Q.K^T, 2 for P.V).
double CausalFlops(const bench::AttentionShape& s, int context, int tokens) {
  double keys = 0;
  for (int i = 0; i < tokens; ++i) keys += context - tokens + i + 1;
  return 4.0 * s.head_dim * s.num_q_heads * keys;
}

// The last `tokens` positions of one sequence of `context` tokens whose K/V sit in shuffled pages.
bool BenchPoint(const PrefillBenchOptions& o, const bench::AttentionShape& s, int context, int tokens,
                const char* kind, PrefillMma mma, std::vector<Row>& rows) {
  Buffers b;
  const int pages = (context + kBlockSize - 1) / kBlockSize;
  const size_t cache_elems = size_t(pages) * kBlockSize * s.num_kv_heads * s.head_dim;
  const size_t q_elems = size_t(tokens) * s.num_q_heads * s.head_dim;
  uint16_t *k = nullptr, *v = nullptr, *q = nullptr, *out = nullptr;
  int32_t *tables = nullptr, *seq = nullptr, *positions = nullptr;
  if (!b.Alloc(k, cache_elems) || !b.Alloc(v, cache_elems) || !b.Alloc(q, q_elems) || !b.Alloc(out, q_elems) ||
      !b.Alloc(tables, pages) || !b.Alloc(seq, tokens) || !b.Alloc(positions, tokens)) {
    return false;
  }
  if (!bench::FillRandomBf16(k, cache_elems, 1) || !bench::FillRandomBf16(v, cache_elems, 2) ||
      !bench::FillRandomBf16(q, q_elems, 3)) {
    return false;
  }
  std::vector<int32_t> table(pages), host_pos(tokens), host_seq(tokens, 0);
  std::iota(table.begin(), table.end(), 0);
  std::shuffle(table.begin(), table.end(), std::mt19937(42));
  std::iota(host_pos.begin(), host_pos.end(), context - tokens);
  VT_BENCH_CHECK(cudaMemcpy(tables, table.data(), pages * 4, cudaMemcpyHostToDevice));
  VT_BENCH_CHECK(cudaMemcpy(positions, host_pos.data(), tokens * 4, cudaMemcpyHostToDevice));
  VT_BENCH_CHECK(cudaMemcpy(seq, host_seq.data(), tokens * 4, cudaMemcpyHostToDevice));

  PrefillAttentionParams p;
  p.q = q;
  p.k_cache = k;
  p.v_cache = v;
  p.seq_of_token = seq;
  p.positions = positions;
  p.block_tables = tables;
  p.out = out;
  p.tokens = tokens;
  p.num_q_heads = s.num_q_heads;
  p.num_kv_heads = s.num_kv_heads;
  p.head_dim = s.head_dim;
  p.block_size = kBlockSize;
  p.max_blocks_per_seq = pages;
  p.max_context = context;
  p.scale = 1.f / std::sqrt(static_cast<float>(s.head_dim));
  const size_t ws_bytes = PrefillTcWorkspaceBytes(p);
  unsigned char* ws = nullptr;
  if (!b.Alloc(ws, ws_bytes)) return false;

  auto launch = [&](int, cudaStream_t stream) {
    Status st = RunPrefillAttentionTensorCore(p, ws, ws_bytes, mma, stream);
    if (!st.ok()) std::fprintf(stderr, "vt bench prefill-attention: %s\n", st.message().c_str());
    return st.ok();
  };
  double us = 0;
  // Calls of milliseconds: a few per graph suffice to hide the launch.
  if (!bench::TimeGraph(launch, 2, o.repetitions, us)) return false;
  // The kernel that ran, not the one asked for: "auto" is the warpgroup kernel only where it runs.
  const std::string ran = PrefillUsesWarpgroupMmas(mma, s.head_dim) ? "wgmma" : "warp";
  Row row{s.name, kind, ran, context, tokens, ws_bytes > 0 ? (context + kPrefillSplitKeys - 1) / kPrefillSplitKeys : 1,
          us, CausalFlops(s, context, tokens) / (us * 1e-6) / 1e12};
  rows.push_back(row);
  if (!o.json) {
    std::printf("%-18s %-6s %-5s %7d %6d %6d %11.1f %8.1f\n", row.shape.c_str(), kind, ran.c_str(), context, tokens,
                row.splits, us, row.tflops);
    std::fflush(stdout);
  }
  return true;
}

}  // namespace

int RunPrefillBench(const PrefillBenchOptions& o) {
  const DeviceProbe probe = ProbeDevice();
  if (!probe.available) {
    std::fprintf(stderr, "vt bench prefill-attention: %s\n", probe.reason.c_str());
    return 1;
  }
  if (!o.json) {
    std::printf("device %s, tensor-core prefill attention, CUDA-graph timed, causal TFLOP/s\n", probe.name.c_str());
    std::printf("%-18s %-6s %-5s %7s %6s %6s %11s %8s\n", "shape", "kind", "mma", "context", "tokens", "splits", "us",
                "TFLOP/s");
  }
  std::vector<Row> rows;
  for (const bench::AttentionShape& s : bench::kAttentionShapes) {
    if (std::find(o.shapes.begin(), o.shapes.end(), s.name) == o.shapes.end()) continue;
    for (int context : o.lengths) {
      for (const std::string& name : o.mmas) {
        const PrefillMma mma = name == "warp" ? PrefillMma::kWarp : PrefillMma::kAuto;
        if (!BenchPoint(o, s, context, context, "prompt", mma, rows)) return 1;
        if (o.chunk > 0 && o.chunk < context && !BenchPoint(o, s, context, o.chunk, "chunk", mma, rows)) return 1;
      }
    }
  }
  if (o.json) {
    std::printf("{\"build_source\":\"%s\",\"device\":\"%s\",\"rows\":[", BuildSource(), probe.name.c_str());
    for (size_t i = 0; i < rows.size(); ++i) {
      const Row& r = rows[i];
      std::printf("%s\n{\"shape\":\"%s\",\"kind\":\"%s\",\"mma\":\"%s\",\"context\":%d,\"tokens\":%d,"
                  "\"splits\":%d,\"us\":%.1f,\"TFLOPs\":%.2f}",
                  i ? "," : "", r.shape.c_str(), r.kind.c_str(), r.mma.c_str(), r.context, r.tokens, r.splits, r.us,
                  r.tflops);
    }
    std::printf("]}\n");
  }
  return 0;
}

}  // namespace vt::kernels::cuda
