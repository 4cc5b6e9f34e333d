// vt's CPU MatMul against OpenBLAS sgemm on prefill- and decode-shaped
// products (the measurement behind the README's "OpenBLAS was measured and
// not adopted"). Not part of the build: OpenBLAS is no dependency of vt.
//
//   apt-get install libopenblas-pthread-dev
//   cmake --build build --target vt_kernels_cpu
//   B=/usr/lib/x86_64-linux-gnu/openblas-pthread
//   g++ -O3 -std=c++20 -I. -I/usr/include/x86_64-linux-gnu/openblas-pthread tools/bench_cpu_matmul.cpp
//       build/kernels/cpu/libvt_kernels_cpu.a -L$B -lopenblas -pthread -o /tmp/bench_cpu_matmul   (one line)
//   OPENBLAS_NUM_THREADS=2 /tmp/bench_cpu_matmul
#include <cblas.h>
#include <chrono>
#include <cstdio>
#include <random>
#include <vector>
#include "kernels/bf16.h"
#include "kernels/cpu/matmul.h"
using namespace vt::kernels::cpu;
int main() {
  ThreadPool pool(2);
  for (auto [M, K, N] : {std::tuple{256, 1024, 3072}, std::tuple{256, 3072, 1024}, std::tuple{8, 1024, 3072}}) {
    std::vector<float> x(M * K), wf(N * K), y(M * N);
    std::vector<uint16_t> wb(N * K);
    std::mt19937 r(1); std::uniform_real_distribution<float> d(-1, 1);
    for (auto& v : x) v = d(r);
    for (size_t i = 0; i < wf.size(); ++i) { wf[i] = d(r); wb[i] = vt::FloatToBf16(wf[i]).bits; }
    WeightMatrix w{DType::kBF16, wb.data(), N, K};
    auto time = [&](auto f) { f(); auto t0 = std::chrono::steady_clock::now(); for (int i = 0; i < 5; ++i) f(); return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / 5; };
    double ours = time([&] { MatMul(pool, x.data(), M, w, nullptr, y.data()); });
    double blas = time([&] { cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, M, N, K, 1.0f, x.data(), K, wf.data(), K, 0.0f, y.data(), N); });
    std::vector<float> conv(N * K);
    double cvt = time([&] { for (size_t i = 0; i < conv.size(); ++i) { uint32_t u = uint32_t(wb[i]) << 16; __builtin_memcpy(&conv[i], &u, 4); } });
    double gf = 2.0 * M * N * K / 1e9;
    std::printf("M=%d K=%d N=%d: ours %.1f GFLOP/s, openblas sgemm %.1f GFLOP/s (+bf16->f32 widening %.2f ms = %.1f GFLOP/s)\n", M, K, N, gf / ours, gf / blas, cvt * 1e3, gf / (blas + cvt));
  }
}
