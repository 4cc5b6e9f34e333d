// Loading progress on a terminal: tensors, bytes and rate on one rewritten
// stderr line. Silent when stderr is not a TTY, so logs and pipes stay clean.
#pragma once

#include <chrono>
#include <cstdint>

namespace vt {

class LoadProgress {
 public:
  LoadProgress(int64_t total_tensors, uint64_t total_bytes);
  void Advance(uint64_t bytes);
  void Done();

 private:
  void Print();

  bool enabled_;
  int64_t total_tensors_;
  uint64_t total_bytes_;
  int64_t tensors_ = 0;
  uint64_t bytes_ = 0;
  std::chrono::steady_clock::time_point start_, last_print_;
};

}  // namespace vt
