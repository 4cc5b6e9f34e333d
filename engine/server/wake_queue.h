// Hands the streams one engine step woke to the server's I/O threads in one batch. Waking a
// connection is an Asio post to its strand, and a post from outside the I/O threads takes the
// scheduler's lock and wakes a thread with a system call; done per token on the engine thread it
// cost the device ~90 us a step at 8 streams (vt bench serve's engine_between_steps_us). Here the
// engine thread takes one lock a step and posts at most one drain, and an I/O thread makes the
// per-connection posts, which from inside the I/O threads need no system call.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace vt::server {

class ResultStream;

class WakeQueue : public std::enable_shared_from_this<WakeQueue> {
 public:
  // Runs a function once, soon, on another thread (the server's I/O threads).
  using Runner = std::function<void(std::function<void()>)>;

  // Thread-safe. Until a runner is set, Hand wakes the streams on the calling thread.
  void SetRunner(Runner runner);
  // Takes the streams out of `woken` (keeping its capacity) and wakes each soon, on the runner.
  void Hand(std::vector<std::shared_ptr<ResultStream>>& woken);

 private:
  void Drain();

  std::mutex mu_;
  Runner runner_;
  std::vector<std::shared_ptr<ResultStream>> queued_;  // handed, not yet drained
  bool drain_posted_ = false;
};

}  // namespace vt::server
