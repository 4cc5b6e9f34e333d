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

#include "kernels/cuda/attention/paged_decode.h"
#include "kernels/cuda/device_probe.h"

namespace vt::kernels::cuda {
namespace {

struct BenchShape {
  const char* name;
  int num_q_heads, num_kv_heads, head_dim;
};

constexpr BenchShape kShapes[] = {
    {"qwen3-1.7b", 16, 8, 128}, {"llama3-8b", 32, 8, 128}, {"qwen3-32b", 64, 8, 128},
    {"d256-16q2kv", 16, 2, 256}, {"gemma3-d256-8q4kv", 8, 4, 256},
};
constexpr int kBlockSize = 16;
// Enough distinct KV copies that one graph never re-reads a copy still resident in the 60 MB L2.
constexpr double kRotationBytes = 512e6;

#define VT_BENCH_CHECK(call)                                                                   \
  do {                                                                                         \
    cudaError_t err_ = (call);                                                                 \
    if (err_ != cudaSuccess) {                                                                 \
      std::fprintf(stderr, "vt bench attention: %s: %s\n", #call, cudaGetErrorString(err_));   \
      return false;                                                                            \
    }                                                                                          \
  } while (0)

// Fills bf16 values uniform in [-1, 1) from a hash of the index: random-looking data
// without a host round trip (never time on zeros).
__global__ void FillRandomBf16(uint16_t* dst, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    uint32_t x = static_cast<uint32_t>(i) * 2654435761u ^ seed;
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    const float f = (x >> 8) * (2.f / 16777216.f) - 1.f;
    dst[i] = static_cast<uint16_t>(__float_as_uint(f) >> 16);
  }
}

bool FillRandom(uint16_t* dst, size_t n, uint32_t seed) {
  FillRandomBf16<<<1024, 256>>>(dst, n, seed);
  VT_BENCH_CHECK(cudaGetLastError());
  return true;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Device-to-device copy bandwidth, counting bytes read plus bytes written.
bool MeasureCopyGBps(double& gbps) {
  const size_t bytes = size_t(2) << 30;
  void *a = nullptr, *b = nullptr;
  VT_BENCH_CHECK(cudaMalloc(&a, bytes));
  VT_BENCH_CHECK(cudaMalloc(&b, bytes));
  VT_BENCH_CHECK(cudaMemset(a, 1, bytes));
  cudaEvent_t start, stop;
  VT_BENCH_CHECK(cudaEventCreate(&start));
  VT_BENCH_CHECK(cudaEventCreate(&stop));
  std::vector<double> ms;
  for (int i = 0; i < 12; ++i) {
    VT_BENCH_CHECK(cudaEventRecord(start));
    VT_BENCH_CHECK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice));
    VT_BENCH_CHECK(cudaEventRecord(stop));
    VT_BENCH_CHECK(cudaEventSynchronize(stop));
    float t = 0;
    VT_BENCH_CHECK(cudaEventElapsedTime(&t, start, stop));
    if (i >= 2) ms.push_back(t);
  }
  gbps = 2.0 * bytes / (Median(ms) * 1e-3) / 1e9;
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaFree(a);
  cudaFree(b);
  return true;
}

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
};

// Times one arm: a graph of `launches` calls cycling over the KV copies, replayed `reps` times.
bool TimeArm(const AttentionBenchOptions& o, PagedDecodeParams base, const DecodePlan& plan,
             const std::vector<KvCopy>& copies, void* workspace, double& us) {
  cudaStream_t stream;
  VT_BENCH_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  auto launch = [&](int i) {
    PagedDecodeParams p = base;
    const KvCopy& c = copies[i % copies.size()];
    p.k_cache = c.k;
    p.v_cache = c.v;
    p.block_tables = c.tables;
    return RunPagedDecode(p, plan, workspace, stream);
  };
  for (int i = 0; i < 3; ++i) {
    Status st = launch(i);
    if (!st.ok()) {
      std::fprintf(stderr, "vt bench attention: %s\n", st.message().c_str());
      return false;
    }
  }
  VT_BENCH_CHECK(cudaStreamSynchronize(stream));

  cudaGraph_t graph;
  cudaGraphExec_t exec;
  VT_BENCH_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < o.launches_per_graph; ++i) {
    if (!launch(i).ok()) break;
  }
  VT_BENCH_CHECK(cudaStreamEndCapture(stream, &graph));
  VT_BENCH_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  VT_BENCH_CHECK(cudaGraphLaunch(exec, stream));
  VT_BENCH_CHECK(cudaStreamSynchronize(stream));

  cudaEvent_t start, stop;
  VT_BENCH_CHECK(cudaEventCreate(&start));
  VT_BENCH_CHECK(cudaEventCreate(&stop));
  std::vector<double> per_call;
  for (int r = 0; r < o.repetitions; ++r) {
    VT_BENCH_CHECK(cudaEventRecord(start, stream));
    VT_BENCH_CHECK(cudaGraphLaunch(exec, stream));
    VT_BENCH_CHECK(cudaEventRecord(stop, stream));
    VT_BENCH_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    VT_BENCH_CHECK(cudaEventElapsedTime(&ms, start, stop));
    per_call.push_back(ms * 1e3 / o.launches_per_graph);
  }
  us = Median(per_call);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
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
    if (!FillRandom(copies[c].k, cache_elems, 1 + 2 * c) || !FillRandom(copies[c].v, cache_elems, 2 + 2 * c)) {
      return false;
    }
    std::vector<int32_t> table(pages);
    std::iota(table.begin(), table.end(), 0);
    std::shuffle(table.begin(), table.end(), rng);
    VT_BENCH_CHECK(cudaMalloc(&copies[c].tables, table.size() * 4));
    VT_BENCH_CHECK(cudaMemcpy(copies[c].tables, table.data(), table.size() * 4, cudaMemcpyHostToDevice));
  }
  const size_t q_elems = size_t(batch) * s.num_q_heads * s.head_dim;
  uint16_t *q = nullptr, *out = nullptr;
  int32_t* lens = nullptr;
  VT_BENCH_CHECK(cudaMalloc(&q, q_elems * 2));
  VT_BENCH_CHECK(cudaMalloc(&out, q_elems * 2));
  if (!FillRandom(q, q_elems, 7)) return false;
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

  const DecodeShape shape{batch, s.num_q_heads, s.num_kv_heads, s.head_dim, kBlockSize, context};
  for (const std::string& arm_name : o.arms) {
    Row row{s.name, arm_name, batch, context, 1, kv_bytes / 1e6, 0, 0, 0, ""};
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
    cudaFree(workspace);
    row.us = us;
    row.gbps = kv_bytes / (us * 1e-6) / 1e9;
    row.copy_pct = 100.0 * row.gbps / copy_gbps;
    rows.push_back(row);
    if (!o.json) {
      std::printf("%-18s %3d %6d %8.1f %-6s %6d %9.2f %8.0f %6.1f%%\n", row.shape.c_str(), batch, context, row.kv_mb,
                  row.arm.c_str(), row.chunks, row.us, row.gbps, row.copy_pct);
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

void PrintJson(const std::string& device, double copy_gbps, const std::vector<Row>& rows) {
  std::printf("{\"device\":\"%s\",\"copy_GBps\":%.1f,\"rows\":[", device.c_str(), copy_gbps);
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    std::printf("%s\n{\"shape\":\"%s\",\"batch\":%d,\"context\":%d,\"kv_MB\":%.2f,\"arm\":\"%s\",\"chunks\":%d,",
                i ? "," : "", r.shape.c_str(), r.batch, r.context, r.kv_mb, r.arm.c_str(), r.chunks);
    if (r.error.empty()) {
      std::printf("\"us\":%.3f,\"GBps\":%.1f,\"copy_pct\":%.2f}", r.us, r.gbps, r.copy_pct);
    } else {
      std::printf("\"error\":\"%s\"}", r.error.c_str());
    }
  }
  std::printf("]}\n");
}

}  // namespace

int RunAttentionBench(const AttentionBenchOptions& o) {
  const DeviceProbe probe = ProbeDevice();
  if (!probe.available) {
    std::fprintf(stderr, "vt bench attention: %s\n", probe.reason.c_str());
    return 1;
  }
  double copy_gbps = 0;
  if (!MeasureCopyGBps(copy_gbps)) return 1;
  if (!o.json) {
    std::printf("device %s, copy bandwidth %.0f GB/s (read+write), split %s, CUDA-graph timed\n", probe.name.c_str(),
                copy_gbps, o.split.c_str());
    std::printf("%-18s %3s %6s %8s %-6s %6s %9s %8s %7s\n", "shape", "B", "ctx", "KV MB", "arm", "chunks", "us",
                "GB/s", "%copy");
  }
  std::vector<Row> rows;
  for (const BenchShape& s : kShapes) {
    if (!o.shapes.empty() && std::find(o.shapes.begin(), o.shapes.end(), s.name) == o.shapes.end()) continue;
    for (int batch : o.batches) {
      for (int context : o.contexts) {
        if (!BenchShapePoint(o, s, batch, context, copy_gbps, rows)) return 1;
      }
    }
  }
  if (o.json) PrintJson(probe.name, copy_gbps, rows);
  return 0;
}

}  // namespace vt::kernels::cuda
