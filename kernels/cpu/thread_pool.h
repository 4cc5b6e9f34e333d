// A fixed pool of worker threads for the CPU kernels. ParallelFor splits a
// range into one contiguous chunk per thread, so each output element is always
// computed by the same code path whatever the batch holds.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace vt::kernels::cpu {

class ThreadPool {
 public:
  // num_threads counts the calling thread: a pool of 1 runs everything inline.
  explicit ThreadPool(int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return static_cast<int>(workers_.size()) + 1; }

  // Calls fn(begin, end) on disjoint chunks covering [0, n); returns when all
  // chunks are done. Chunks never go below min_chunk elements, so tiny ranges
  // do not pay for waking threads.
  void ParallelFor(int64_t n, const std::function<void(int64_t, int64_t)>& fn, int64_t min_chunk = 1);

 private:
  void WorkerLoop(int index);

  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable work_cv_;
  std::condition_variable done_cv_;
  const std::function<void(int64_t, int64_t)>* job_ = nullptr;
  int64_t job_n_ = 0;
  int job_chunks_ = 0;
  uint64_t generation_ = 0;
  int pending_ = 0;
  bool stop_ = false;
};

// The process-wide pool: one thread per logical core (the engine sizes its own from VT_NUM_THREADS).
ThreadPool& DefaultThreadPool();

}  // namespace vt::kernels::cpu
