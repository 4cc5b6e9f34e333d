#include "kernels/cuda/bench/attention_bench.h"

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
#include "kernels/cuda/attention/paged_decode.h"
#include "kernels/cuda/bench/bench_common.h"
#include "kernels/cuda/dependent_launch.h"
#include "kernels/cuda/device_probe.h"

namespace vt::kernels::cuda {
namespace {

using BenchShape = bench::AttentionShape;
constexpr int kBlockSize = 16;
// Enough distinct KV copies that one graph never re-reads a copy still resident in the 60 MB L2.
constexpr double kRotationBytes = 512e6;

#define VT_BENCH_CHECK(call)                       \
  do {                                             \
    if (!bench::Check((call), #call)) return false; \
  } while (0)

struct KvCopy {
  uint16_t* k = nullptr;
  uint16_t* v = nullptr;
  int32_t* tables = nullptr;
};

struct Row {
  std::string shape, arm;
  int batch, context, chunks;
  double kv_mb, us, gbps, copy_pct;
  std::string error;
  std::string out_hash;  // of one call's output on the first KV copy: equal hashes, equal bits
  int64_t unwritten;     // elements of that output the call left as the poison written before it
};

// The call's arguments on one KV copy.
PagedDecodeParams OnCopy(const PagedDecodeParams& base, const KvCopy& copy) {
  PagedDecodeParams p = base;
  p.k_cache = copy.k;
  p.v_cache = copy.v;
  p.block_tables = copy.tables;
  return p;
}

// Times one arm: a graph of calls cycling over the KV copies.
bool TimeArm(const AttentionBenchOptions& o, const PagedDecodeParams& base, const DecodePlan& plan,
             const std::vector<KvCopy>& copies, void* workspace, double& us) {
  auto launch = [&](int i, cudaStream_t stream) {
    Status st = RunPagedDecode(OnCopy(base, copies[i % copies.size()]), plan, workspace, stream);
    if (!st.ok()) std::fprintf(stderr, "vt bench attention: %s\n", st.message().c_str());
    return st.ok();
  };
  return bench::TimeGraph(launch, o.launches_per_graph, o.repetitions, us);
}

// FNV-1a over one call's bf16 output (the first KV copy, after the timed graphs), so two arms, or the
// same arm in two builds, can be compared bit for bit from the benchmark's output alone: the inputs
// are the same seeded values in every run with the same shapes, split and page order (and standard
// library: the page shuffle is std::shuffle's). Also counts the elements the call left unwritten (the
// poison is a NaN that no arm writes).
bool HashOneCall(const PagedDecodeParams& base, const DecodePlan& plan, const KvCopy& copy, void* workspace,
                 size_t out_elems, std::string& hash, int64_t& unwritten) {
  const PagedDecodeParams p = OnCopy(base, copy);
  VT_BENCH_CHECK(cudaMemset(p.out, 0xff, out_elems * 2));
  // A plain launch: the launch form changes no bit (DecodeArms tests), and the default stream has no
  // kernel to overlap.
  const Status st = [&] {
    const ScopedDependentLaunch plain(false);
    return RunPagedDecode(p, plan, workspace, nullptr);
  }();
  if (!st.ok()) {
    std::fprintf(stderr, "vt bench attention: %s\n", st.message().c_str());
    return false;
  }
  std::vector<uint16_t> out(out_elems);
  VT_BENCH_CHECK(cudaMemcpy(out.data(), p.out, out_elems * 2, cudaMemcpyDeviceToHost));
  unwritten = std::count(out.begin(), out.end(), uint16_t{0xffff});
  uint64_t h = 1469598103934665603ull;
  for (uint16_t v : out) {
    for (int byte = 0; byte < 2; ++byte) {
      h ^= (v >> (8 * byte)) & 0xffu;
      h *= 1099511628211ull;
    }
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
  hash = text;
  return true;
}

bool BenchShapePoint(const AttentionBenchOptions& o, const BenchShape& s, int batch, int context, double copy_gbps,
                     std::vector<Row>& rows) {
  const int blocks_per_seq = (context + kBlockSize - 1) / kBlockSize;
  const int pages = batch * blocks_per_seq;
  const size_t cache_elems = size_t(pages) * kBlockSize * s.num_kv_heads * s.head_dim;
  const double kv_bytes = 2.0 * batch * context * s.num_kv_heads * s.head_dim * 2;
  const int num_copies = std::clamp(static_cast<int>(std::ceil(kRotationBytes / kv_bytes)), 1, 64);

  std::mt19937 rng(42);
  std::vector<KvCopy> copies(num_copies);
  for (int c = 0; c < num_copies; ++c) {
    VT_BENCH_CHECK(cudaMalloc(&copies[c].k, cache_elems * 2));
    VT_BENCH_CHECK(cudaMalloc(&copies[c].v, cache_elems * 2));
    if (!bench::FillRandomBf16(copies[c].k, cache_elems, 1 + 2 * c) ||
        !bench::FillRandomBf16(copies[c].v, cache_elems, 2 + 2 * c)) {
      return false;
    }
    std::vector<int32_t> table(pages);
    std::iota(table.begin(), table.end(), 0);
    if (o.pages == "shuffled") std::shuffle(table.begin(), table.end(), rng);
    VT_BENCH_CHECK(cudaMalloc(&copies[c].tables, table.size() * 4));
    VT_BENCH_CHECK(cudaMemcpy(copies[c].tables, table.data(), table.size() * 4, cudaMemcpyHostToDevice));
  }
  const size_t q_elems = size_t(batch) * s.num_q_heads * s.head_dim;
  uint16_t *q = nullptr, *out = nullptr;
  int32_t* lens = nullptr;
  VT_BENCH_CHECK(cudaMalloc(&q, q_elems * 2));
  VT_BENCH_CHECK(cudaMalloc(&out, q_elems * 2));
  if (!bench::FillRandomBf16(q, q_elems, 7)) return false;
  std::vector<int32_t> host_lens(batch, context);
  VT_BENCH_CHECK(cudaMalloc(&lens, batch * 4));
  VT_BENCH_CHECK(cudaMemcpy(lens, host_lens.data(), batch * 4, cudaMemcpyHostToDevice));

  PagedDecodeParams base;
  base.q = q;
  base.context_lens = lens;
  base.out = out;
  base.batch = batch;
  base.num_q_heads = s.num_q_heads;
  base.num_kv_heads = s.num_kv_heads;
  base.head_dim = s.head_dim;
  base.block_size = kBlockSize;
  base.max_blocks_per_seq = blocks_per_seq;
  base.scale = 1.f / std::sqrt(static_cast<float>(s.head_dim));
  base.history_settled = true;  // as in a decode step: nothing before a call writes its tables or keys

  const DecodeShape shape{batch, s.num_q_heads, s.num_kv_heads, s.head_dim, kBlockSize, context};
  for (const std::string& arm_name : o.arms) {
    Row row{s.name, arm_name, batch, context, 1, kv_bytes / 1e6, 0, 0, 0, "", "", 0};
    Result<DecodeOverrides> overrides = ParseDecodeOverrides(arm_name.c_str(), o.split.c_str());
    Result<DecodePlan> plan = overrides.ok() ? PlanDecode(shape, *overrides) : Result<DecodePlan>(overrides.status());
    if (!plan.ok()) {
      row.error = plan.status().message();
      rows.push_back(row);
      if (!o.json) std::printf("%-18s %3d %6d %8.1f %-6s n/a: %s\n", s.name, batch, context, row.kv_mb,
                               arm_name.c_str(), row.error.c_str());
      continue;
    }
    row.chunks = plan->num_chunks;
    void* workspace = nullptr;
    const size_t ws = DecodeWorkspaceBytes(shape, *plan);
    if (ws > 0) VT_BENCH_CHECK(cudaMalloc(&workspace, ws));
    double us = 0;
    if (!TimeArm(o, base, *plan, copies, workspace, us)) return false;
    if (!HashOneCall(base, *plan, copies[0], workspace, q_elems, row.out_hash, row.unwritten)) return false;
    cudaFree(workspace);
    row.us = us;
    row.gbps = kv_bytes / (us * 1e-6) / 1e9;
    row.copy_pct = 100.0 * row.gbps / copy_gbps;
    rows.push_back(row);
    if (!o.json) {
      std::printf("%-18s %3d %6d %8.1f %-6s %6d %9.2f %8.0f %6.1f%% %s%s\n", row.shape.c_str(), batch, context,
                  row.kv_mb, row.arm.c_str(), row.chunks, row.us, row.gbps, row.copy_pct, row.out_hash.c_str(),
                  row.unwritten ? (" UNWRITTEN " + std::to_string(row.unwritten)).c_str() : "");
      std::fflush(stdout);
    }
  }
  for (KvCopy& c : copies) {
    cudaFree(c.k);
    cudaFree(c.v);
    cudaFree(c.tables);
  }
  cudaFree(q);
  cudaFree(out);
  cudaFree(lens);
  return true;
}

void PrintJson(const std::string& device, const AttentionBenchOptions& o, double copy_gbps,
               const std::vector<Row>& rows) {
  std::printf("{\"build_source\":\"%s\",\"device\":\"%s\",\"pages\":\"%s\",\"dependent_launch\":%s,"
              "\"copy_GBps\":%.1f,\"rows\":[",
              BuildSource(), device.c_str(), o.pages.c_str(), o.dependent_launch ? "true" : "false",
              copy_gbps);
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    std::printf("%s\n{\"shape\":\"%s\",\"batch\":%d,\"context\":%d,\"kv_MB\":%.2f,\"arm\":\"%s\",\"chunks\":%d,",
                i ? "," : "", r.shape.c_str(), r.batch, r.context, r.kv_mb, r.arm.c_str(), r.chunks);
    if (r.error.empty()) {
      std::printf("\"us\":%.3f,\"GBps\":%.1f,\"copy_pct\":%.2f,\"out_hash\":\"%s\",\"unwritten\":%lld}", r.us,
                  r.gbps, r.copy_pct, r.out_hash.c_str(), static_cast<long long>(r.unwritten));
    } else {
      std::printf("\"error\":\"%s\"}", r.error.c_str());
    }
  }
  std::printf("]}\n");
}

// Every requested shape, batch and context, in that order; false at the first that fails.
bool BenchAllPoints(const AttentionBenchOptions& o, double copy_gbps, std::vector<Row>& rows) {
  for (const BenchShape& s : bench::kAttentionShapes) {
    if (!o.shapes.empty() && std::find(o.shapes.begin(), o.shapes.end(), s.name) == o.shapes.end()) continue;
    for (int batch : o.batches) {
      for (int context : o.contexts) {
        if (!BenchShapePoint(o, s, batch, context, copy_gbps, rows)) return false;
      }
    }
  }
  return true;
}

}  // namespace

int RunAttentionBench(const AttentionBenchOptions& o) {
  const DeviceProbe probe = ProbeDevice();
  if (!probe.available) {
    std::fprintf(stderr, "vt bench attention: %s\n", probe.reason.c_str());
    return 1;
  }
  double copy_gbps = 0;
  if (!bench::MeasureCopyGBps(copy_gbps)) return 1;
  if (!o.json) {
    std::printf("device %s, copy bandwidth %.0f GB/s (read+write), split %s, pages %s, dependent launch %s, "
                "CUDA-graph timed\n",
                probe.name.c_str(), copy_gbps, o.split.c_str(), o.pages.c_str(), o.dependent_launch ? "on" : "off");
    std::printf("%-18s %3s %6s %8s %-6s %6s %9s %8s %7s %s\n", "shape", "B", "ctx", "KV MB", "arm", "chunks", "us",
                "GB/s", "%copy", "output hash");
  }
  std::vector<Row> rows;
  SetDependentLaunch(o.dependent_launch);
  const bool ran = BenchAllPoints(o, copy_gbps, rows);
  SetDependentLaunch(false);
  if (!ran) return 1;
  if (o.json) PrintJson(probe.name, o, copy_gbps, rows);
  return 0;
}

}  // namespace vt::kernels::cuda
