#include "engine/server/wake_queue.h"

#include <iterator>
#include <utility>

#include "engine/server/engine_service.h"

namespace vt::server {

void WakeQueue::SetRunner(Runner runner) {
  std::lock_guard<std::mutex> lock(mu_);
  runner_ = std::move(runner);
}

void WakeQueue::Hand(std::vector<std::shared_ptr<ResultStream>>& woken) {
  if (woken.empty()) return;
  Runner runner;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (runner_) {
      queued_.insert(queued_.end(), std::make_move_iterator(woken.begin()), std::make_move_iterator(woken.end()));
      woken.clear();
      // A drain posted and not yet begun takes these too: one post however far the I/O threads
      // fall behind.
      if (drain_posted_) return;
      drain_posted_ = true;
      runner = runner_;
    }
  }
  if (!runner) {
    for (const std::shared_ptr<ResultStream>& s : woken) s->Wake();
    woken.clear();
    return;
  }
  // The queue outlives the service that handed it streams while a drain is on its way.
  runner([self = shared_from_this()] { self->Drain(); });
}

void WakeQueue::Drain() {
  std::vector<std::shared_ptr<ResultStream>> batch;
  {
    std::lock_guard<std::mutex> lock(mu_);
    batch.swap(queued_);
    drain_posted_ = false;
  }
  for (const std::shared_ptr<ResultStream>& s : batch) s->Wake();
}

}  // namespace vt::server
