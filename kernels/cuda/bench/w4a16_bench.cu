#include "kernels/cuda/bench/w4a16_bench.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/build_source.h"
#include "kernels/cuda/bench/bench_common.h"
#include "kernels/cuda/dependent_launch.h"
#include "kernels/cuda/device_probe.h"
#include "kernels/cuda/ops/dense_gemm.h"
#include "kernels/cuda/w4a16/w4a16_gemm.h"
#include "kernels/w4a16/w4a16_shape.h"

namespace vt::kernels::cuda {
namespace {

constexpr double kRotationBytes = 512e6;
constexpr size_t kCublasWorkspace = 32u << 20;

struct Row {
  int k, n, m;
  std::string form;
  double w4_us, w4_gbps, copy_pct, cublas_us, cublas_gbps;
};

const char* FormName(W4A16Form form) {
  return form == W4A16Form::kStack ? "stack" : form == W4A16Form::kTile ? "tile" : "spread";
}

// One way to run the product: an int4 form with its split, or the weights dequantised to bf16
// and cuBLAS on them.
struct Variant {
  std::string label;
  W4A16Split split;
  bool dequant = false;
};

Variant FormVariant(const std::string& prefix, const W4A16Split& split) {
  return Variant{prefix + FormName(split.form) + ", K split " + std::to_string(split.slices) + " x " +
                     std::to_string(split.k_slice),
                 split, false};
}

// `form` with K cut into about `slices` slices of whole scale groups.
W4A16Split ForcedSplit(int k, int slices, W4A16Form form) {
  const int k_slice = ((k + slices - 1) / slices + 127) / 128 * 128;
  return W4A16Split{k_slice, (k + k_slice - 1) / k_slice, form};
}

// The variants to time for M: "auto" is vt's choice (the dequantised GEMM from kW4A16DequantMinRows);
// "spread", "stack" and "tile" force a form (stack only at M <= 8), "dequant" the dequantised GEMM;
// each of `tile_slices` (`stack_slices`) the tiled (stacked) form split into that many K slices.
std::vector<Variant> VariantsToTime(const W4A16BenchOptions& o, int m, int k, int n, int sms) {
  std::vector<Variant> variants;
  const std::string dequant = "dequantise + cuBLAS";
  for (const std::string& form : o.forms) {
    if (form == "auto") {
      variants.push_back(m >= kW4A16DequantMinRows ? Variant{"auto: " + dequant, W4A16Split{}, true}
                                                   : FormVariant("auto: ", ChooseW4A16Split(m, k, n, sms)));
    }
    if (form == "spread") variants.push_back(FormVariant("", ChooseW4A16Split(m, k, n, sms, W4A16Form::kSpread)));
    if (form == "stack" && m <= 8) variants.push_back(FormVariant("", ChooseW4A16Split(m, k, n, sms, W4A16Form::kStack)));
    if (form == "tile") variants.push_back(FormVariant("", ChooseW4A16Split(m, k, n, sms, W4A16Form::kTile)));
    if (form == "dequant") variants.push_back(Variant{dequant, W4A16Split{}, true});
  }
  for (int slices : o.tile_slices) variants.push_back(FormVariant("forced ", ForcedSplit(k, slices, W4A16Form::kTile)));
  for (int slices : o.stack_slices) {
    const W4A16Split split = ForcedSplit(k, slices, W4A16Form::kStack);
    // A slice whose staged rows do not fit the form's shared memory is left out, not failed.
    if (CheckW4A16Split(W4A16Problem{nullptr, nullptr, nullptr, nullptr, m, k, n}, split).ok()) {
      variants.push_back(FormVariant("forced ", split));
    }
  }
  return variants;
}

bool CublasOk(cublasStatus_t st, const char* what) {
  if (st == CUBLAS_STATUS_SUCCESS) return true;
  std::fprintf(stderr, "vt bench w4a16: %s: cuBLAS status %d\n", what, static_cast<int>(st));
  return false;
}

// Times both GEMMs for one shape and every M.
bool BenchShape(const W4A16BenchOptions& o, cublasHandle_t cublas, void* cublas_ws, int k, int n, double copy_gbps,
                std::vector<Row>& rows) {
  const int group = 128;
  const double w4_bytes = double(k) * n / 2 + double(k) / group * n * 2;
  const double bf16_bytes = double(k) * n * 2;
  const int w4_copies = std::clamp(static_cast<int>(std::ceil(kRotationBytes / w4_bytes)), 2, 64);
  const int bf16_copies = std::clamp(static_cast<int>(std::ceil(kRotationBytes / bf16_bytes)), 2, 64);
  const int max_m = *std::max_element(o.ms.begin(), o.ms.end());

  std::vector<uint32_t*> packed(w4_copies);
  std::vector<uint16_t*> scales(w4_copies), dense(bf16_copies);
  for (int c = 0; c < w4_copies; ++c) {
    if (!bench::Check(cudaMalloc(&packed[c], size_t(k) * n / 2), "alloc packed") ||
        !bench::Check(cudaMalloc(&scales[c], size_t(k / group) * n * 2), "alloc scales") ||
        !bench::FillRandomWords(packed[c], size_t(k) * n / 8, 11 + c) ||
        !bench::FillRandomBf16(scales[c], size_t(k / group) * n, 13 + c, 0.02f)) {
      return false;
    }
  }
  for (int c = 0; c < bf16_copies; ++c) {
    if (!bench::Check(cudaMalloc(&dense[c], size_t(k) * n * 2), "alloc dense") ||
        !bench::FillRandomBf16(dense[c], size_t(k) * n, 17 + c, 0.05f)) {
      return false;
    }
  }
  uint16_t *x = nullptr, *y = nullptr;
  float* workspace = nullptr;
  if (!bench::Check(cudaMalloc(&x, size_t(max_m) * k * 2), "alloc x") ||
      !bench::Check(cudaMalloc(&y, size_t(max_m) * n * 2), "alloc y") || !bench::FillRandomBf16(x, size_t(max_m) * k, 3)) {
    return false;
  }
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  size_t ws_bytes = 0;
  bool dequantises = false;
  for (int m : o.ms) {
    for (const Variant& v : VariantsToTime(o, m, k, n, sms)) {
      if (!v.dequant) ws_bytes = std::max(ws_bytes, W4A16WorkspaceBytes(m, n, v.split));
      dequantises = dequantises || v.dequant;
    }
  }
  if (ws_bytes > 0 && !bench::Check(cudaMalloc(&workspace, ws_bytes), "alloc workspace")) return false;
  uint16_t* dequantised = nullptr;  // [n, k] bf16
  std::unique_ptr<DenseGemm> dense_gemm;  // what the engine runs on dequantised weights, cuBLAS at every M
  if (dequantises) {
    Result<DenseGemm*> created = DenseGemm::Create(/*skinny=*/false, /*batch=*/false);
    if (!created.ok()) {
      std::fprintf(stderr, "vt bench w4a16: %s\n", created.status().message().c_str());
      return false;
    }
    dense_gemm.reset(*created);
    if (!bench::Check(cudaMalloc(&dequantised, size_t(k) * n * 2), "alloc dequantised")) return false;
  }

  for (int m : o.ms) {
    W4A16Split split;
    auto w4 = [&](int i, cudaStream_t stream) {
      W4A16Problem p{x, packed[i % w4_copies], scales[i % w4_copies], y, m, k, n, group};
      Status st = RunW4A16Gemm(p, split, workspace, stream);
      if (!st.ok()) std::fprintf(stderr, "vt bench w4a16: %s\n", st.message().c_str());
      return st.ok();
    };
    auto bf16 = [&](int i, cudaStream_t stream) {
      const float alpha = 1.f, beta = 0.f;
      // Row-major y[m,n] = x[m,k] . W[k,n] is column-major y^T = W^T . x^T.
      return CublasOk(cublasSetStream(cublas, stream), "set stream") &&
             CublasOk(cublasSetWorkspace(cublas, cublas_ws, kCublasWorkspace), "set workspace") &&
             CublasOk(cublasGemmEx(cublas, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, dense[i % bf16_copies],
                                   CUDA_R_16BF, n, x, CUDA_R_16BF, k, &beta, y, CUDA_R_16BF, n, CUBLAS_COMPUTE_32F,
                                   CUBLAS_GEMM_DEFAULT),
                      "gemm");
    };
    // The rotated int4 copy dequantised into one scratch, then the bf16 GEMM on it in nn.Linear's layout.
    auto dequant_bf16 = [&](int i, cudaStream_t stream) {
      Status st = DequantizeW4A16(packed[i % w4_copies], scales[i % w4_copies], k, n, group, dequantised, stream);
      if (st.ok()) st = dense_gemm->Linear(x, dequantised, m, n, k, y, stream);
      if (!st.ok()) std::fprintf(stderr, "vt bench w4a16: %s\n", st.message().c_str());
      return st.ok();
    };
    double cublas_us = 0;
    if (!bench::TimeGraph(bf16, o.launches_per_graph, o.repetitions, cublas_us)) return false;
    for (const Variant& v : VariantsToTime(o, m, k, n, sms)) {
      split = v.split;
      Row r{k, n, m, v.label, 0, 0, 0, cublas_us, bf16_bytes / (cublas_us * 1e-6) / 1e9};
      const bool timed = v.dequant ? bench::TimeGraph(dequant_bf16, o.launches_per_graph, o.repetitions, r.w4_us)
                                   : bench::TimeGraph(w4, o.launches_per_graph, o.repetitions, r.w4_us);
      if (!timed) return false;
      r.w4_gbps = w4_bytes / (r.w4_us * 1e-6) / 1e9;
      r.copy_pct = 100.0 * r.w4_gbps / copy_gbps;
      rows.push_back(r);
      if (!o.json) {
        std::printf("%6d x %-6d %4d %9.2f %8.0f %6.1f%% %9.2f %8.0f %7.2fx  (%s)\n", k, n, m, r.w4_us, r.w4_gbps,
                    r.copy_pct, r.cublas_us, r.cublas_gbps, r.cublas_us / r.w4_us, v.label.c_str());
        std::fflush(stdout);
      }
    }
  }
  for (uint32_t* p : packed) cudaFree(p);
  for (uint16_t* p : scales) cudaFree(p);
  for (uint16_t* p : dense) cudaFree(p);
  cudaFree(x);
  cudaFree(y);
  cudaFree(workspace);
  cudaFree(dequantised);
  return true;
}

}  // namespace

int RunW4A16Bench(const W4A16BenchOptions& o) {
  const DeviceProbe probe = ProbeDevice();
  if (!probe.available) {
    std::fprintf(stderr, "vt bench w4a16: %s\n", probe.reason.c_str());
    return 1;
  }
  double copy_gbps = 0;
  if (!bench::MeasureCopyGBps(copy_gbps)) return 1;
  cublasHandle_t cublas;
  void* cublas_ws = nullptr;
  if (!CublasOk(cublasCreate(&cublas), "create") || !bench::Check(cudaMalloc(&cublas_ws, kCublasWorkspace), "alloc")) {
    return 1;
  }
  if (!o.json) {
    std::printf("device %s, copy bandwidth %.0f GB/s (read+write), CUDA-graph timed, weights rotated past L2, "
                "dependent launch %s\n",
                probe.name.c_str(), copy_gbps, o.dependent_launch ? "on" : "off");
    std::printf("%15s %4s %9s %8s %7s %9s %8s %8s\n", "K x N", "M", "w4a16 us", "GB/s", "%copy", "cuBLAS us",
                "GB/s", "speedup");
  }
  std::vector<Row> rows;
  for (const std::string& shape : o.shapes) {
    int k = 0, n = 0;
    if (!bench::ParseShape(shape, k, n)) {
      std::fprintf(stderr, "vt bench w4a16: shape '%s' is not KxN\n", shape.c_str());
      return 2;
    }
    if (Status st = CheckW4A16Shape(k, n); !st.ok()) {
      std::fprintf(stderr, "vt bench w4a16: %s\n", st.message().c_str());
      return 2;
    }
    SetDependentLaunch(o.dependent_launch);
    const bool timed = BenchShape(o, cublas, cublas_ws, k, n, copy_gbps, rows);
    SetDependentLaunch(false);
    if (!timed) return 1;
  }
  if (o.json) {
    std::printf("{\"build_source\":\"%s\",\"device\":\"%s\",\"dependent_launch\":%s,\"copy_GBps\":%.1f,\"rows\":[",
                BuildSource(), probe.name.c_str(), o.dependent_launch ? "true" : "false", copy_gbps);
    for (size_t i = 0; i < rows.size(); ++i) {
      const Row& r = rows[i];
      std::printf("%s\n{\"K\":%d,\"N\":%d,\"M\":%d,\"form\":\"%s\",\"w4a16_us\":%.3f,\"w4a16_GBps\":%.1f,\"copy_pct\":%.2f,"
                  "\"cublas_us\":%.3f,\"cublas_GBps\":%.1f,\"speedup\":%.3f}",
                  i ? "," : "", r.k, r.n, r.m, r.form.c_str(), r.w4_us, r.w4_gbps, r.copy_pct, r.cublas_us, r.cublas_gbps,
                  r.cublas_us / r.w4_us);
    }
    std::printf("]}\n");
  }
  cudaFree(cublas_ws);
  cublasDestroy(cublas);
  return 0;
}

}  // namespace vt::kernels::cuda
