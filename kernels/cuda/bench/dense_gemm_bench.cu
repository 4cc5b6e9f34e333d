#include "kernels/cuda/bench/dense_gemm_bench.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "base/build_source.h"
#include "kernels/cuda/bench/bench_common.h"
#include "kernels/cuda/dependent_launch.h"
#include "kernels/cuda/device_probe.h"
#include "kernels/cuda/ops/batch_decode_gemm.h"
#include "kernels/cuda/ops/dense_gemm.h"

namespace vt::kernels::cuda {
namespace {

constexpr double kRotationBytes = 512e6;

struct Row {
  int k, n, m;
  std::string kernel;
  double vt_us, vt_gbps, copy_pct, cublas_us, cublas_gbps;
};

// Times both sides for one shape and every M; bytes moved are the weights plus x and y.
bool BenchShape(const DenseGemmBenchOptions& o, DenseGemm& vt, DenseGemm& cublas, int k, int n, double copy_gbps,
                std::vector<Row>& rows) {
  const double weight_bytes = double(k) * n * 2;
  const int copies = std::clamp(static_cast<int>(std::ceil(kRotationBytes / weight_bytes)), 2, 64);
  const int max_m = *std::max_element(o.ms.begin(), o.ms.end());
  std::vector<uint16_t*> weights(copies);
  for (int c = 0; c < copies; ++c) {
    if (!bench::Check(cudaMalloc(&weights[c], size_t(k) * n * 2), "alloc weights") ||
        !bench::FillRandomBf16(weights[c], size_t(k) * n, 17 + c, 0.05f)) {
      return false;
    }
  }
  uint16_t *x = nullptr, *y = nullptr;
  if (!bench::Check(cudaMalloc(&x, size_t(max_m) * k * 2), "alloc x") ||
      !bench::Check(cudaMalloc(&y, size_t(max_m) * n * 2), "alloc y") || !bench::FillRandomBf16(x, size_t(max_m) * k, 3)) {
    return false;
  }
  auto report = [&](Row r) {
    const double bytes = weight_bytes + double(r.m) * (k + n) * 2;
    r.vt_gbps = bytes / (r.vt_us * 1e-6) / 1e9;
    r.cublas_gbps = bytes / (r.cublas_us * 1e-6) / 1e9;
    r.copy_pct = 100.0 * r.vt_gbps / copy_gbps;
    rows.push_back(r);
    if (!o.json) {
      std::printf("%6d x %-6d %4d %-7s %9.2f %8.0f %6.1f%% %9.2f %8.0f %7.2fx\n", k, n, r.m, r.kernel.c_str(),
                  r.vt_us, r.vt_gbps, r.copy_pct, r.cublas_us, r.cublas_gbps, r.cublas_us / r.vt_us);
      std::fflush(stdout);
    }
  };
  for (int m : o.ms) {
    auto timed = [&](auto linear) {
      return [&, linear](int i, cudaStream_t stream) {
        const Status st = linear(weights[i % copies], stream);
        if (!st.ok()) std::fprintf(stderr, "vt bench gemm: %s\n", st.message().c_str());
        return st.ok();
      };
    };
    auto through = [&, m](DenseGemm& gemm) {
      return timed([&, m](const uint16_t* w, cudaStream_t stream) { return gemm.Linear(x, w, m, n, k, y, stream); });
    };
    Row r{k, n, m, DenseKernelName(vt.KernelFor(x, weights[0], m, n, k, y)), 0, 0, 0, 0, 0};
    if (!bench::TimeGraph(through(cublas), o.launches_per_graph, o.repetitions, r.cublas_us) ||
        !bench::TimeGraph(through(vt), o.launches_per_graph, o.repetitions, r.vt_us)) {
      return false;
    }
    report(r);
    if (!BatchLinearSupports(x, weights[0], m, n, k, y)) continue;
    for (int splits : o.batch_splits) {
      Row forced = r;
      forced.kernel = "split" + std::to_string(splits);
      auto batch = [&, m, splits](const uint16_t* w, cudaStream_t stream) {
        return BatchLinear(x, w, m, n, k, y, stream, splits);
      };
      if (!bench::TimeGraph(timed(batch), o.launches_per_graph, o.repetitions, forced.vt_us)) return false;
      report(forced);
    }
  }
  for (uint16_t* p : weights) cudaFree(p);
  cudaFree(x);
  cudaFree(y);
  return true;
}

}  // namespace

int RunDenseGemmBench(const DenseGemmBenchOptions& o) {
  const DeviceProbe probe = ProbeDevice();
  if (!probe.available) {
    std::fprintf(stderr, "vt bench gemm: %s\n", probe.reason.c_str());
    return 1;
  }
  double copy_gbps = 0;
  if (!bench::MeasureCopyGBps(copy_gbps)) return 1;
  Result<DenseGemm*> vt_gemm = DenseGemm::Create(true, true);
  Result<DenseGemm*> cublas_gemm = DenseGemm::Create(false, false);
  if (!vt_gemm.ok() || !cublas_gemm.ok()) {
    std::fprintf(stderr, "vt bench gemm: %s\n",
                 (vt_gemm.ok() ? cublas_gemm.status() : vt_gemm.status()).message().c_str());
    return 1;
  }
  const std::unique_ptr<DenseGemm> vt(*vt_gemm), cublas(*cublas_gemm);
  if (!o.json) {
    std::printf("device %s, copy bandwidth %.0f GB/s (read+write), CUDA-graph timed, weights rotated past L2, "
                "dependent launch %s\n",
                probe.name.c_str(), copy_gbps, o.dependent_launch ? "on" : "off");
    std::printf("%15s %4s %-7s %9s %8s %7s %9s %8s %8s\n", "K x N", "M", "vt", "vt us", "GB/s", "%copy", "cuBLAS us",
                "GB/s", "speedup");
  }
  std::vector<Row> rows;
  for (const std::string& shape : o.shapes) {
    int k = 0, n = 0;
    if (!bench::ParseShape(shape, k, n)) {
      std::fprintf(stderr, "vt bench gemm: shape '%s' is not KxN\n", shape.c_str());
      return 2;
    }
    SetDependentLaunch(o.dependent_launch);
    const bool timed = BenchShape(o, *vt, *cublas, k, n, copy_gbps, rows);
    SetDependentLaunch(false);
    if (!timed) return 1;
  }
  if (o.json) {
    std::printf("{\"build_source\":\"%s\",\"device\":\"%s\",\"dependent_launch\":%s,"
                "\"copy_GBps\":%.1f,\"rows\":[",
                BuildSource(), probe.name.c_str(), o.dependent_launch ? "true" : "false", copy_gbps);
    for (size_t i = 0; i < rows.size(); ++i) {
      const Row& r = rows[i];
      std::printf("%s\n{\"K\":%d,\"N\":%d,\"M\":%d,\"kernel\":\"%s\",\"vt_us\":%.3f,\"vt_GBps\":%.1f,\"copy_pct\":%.2f,"
                  "\"cublas_us\":%.3f,\"cublas_GBps\":%.1f,\"speedup\":%.3f}",
                  i ? "," : "", r.k, r.n, r.m, r.kernel.c_str(), r.vt_us, r.vt_gbps, r.copy_pct, r.cublas_us,
                  r.cublas_gbps, r.cublas_us / r.vt_us);
    }
    std::printf("]}\n");
  }
  return 0;
}

}  // namespace vt::kernels::cuda
