#include "engine/loader/load_progress.h"

#include <unistd.h>

#include <cstdio>

namespace vt {

LoadProgress::LoadProgress(int64_t total_tensors, uint64_t total_bytes)
    : enabled_(::isatty(STDERR_FILENO) == 1),
      total_tensors_(total_tensors),
      total_bytes_(total_bytes),
      start_(std::chrono::steady_clock::now()),
      last_print_(start_) {}

void LoadProgress::Advance(uint64_t bytes) {
  ++tensors_;
  bytes_ += bytes;
  if (!enabled_) return;
  auto now = std::chrono::steady_clock::now();
  if (now - last_print_ > std::chrono::milliseconds(100)) {
    last_print_ = now;
    Print();
  }
}

void LoadProgress::Done() {
  if (!enabled_) return;
  Print();
  std::fputc('\n', stderr);
}

void LoadProgress::Print() {
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double gb = static_cast<double>(bytes_) / 1e9;
  std::fprintf(stderr, "\rloading: %lld/%lld tensors, %.2f/%.2f GB, %.2f GB/s", static_cast<long long>(tensors_),
               static_cast<long long>(total_tensors_), gb, static_cast<double>(total_bytes_) / 1e9,
               s > 0 ? gb / s : 0.0);
  std::fflush(stderr);
}

}  // namespace vt
