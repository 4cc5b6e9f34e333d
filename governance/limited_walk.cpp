#include "governance/limited_walk.h"

#include <cstdint>
#include <cstring>
#include <deque>
#include <queue>
#include <unordered_map>

#include "governance/object_integrity.h"

namespace vt::gate {
namespace {

// git's SLOP: uninteresting commits read after the last interesting one
// before the walk trusts that no older commit of the tip's is left.
constexpr int kSlop = 5;

enum Flag : uint8_t {
  kHidden = 1,      // reached from a hidden tip
  kBelowFloor = 2,  // reached from the floor
  kUninteresting = kHidden | kBelowFloor,
  kExpanded = 4,  // its parents have been read
  kQueued = 8,
};

struct Node {
  git_oid oid{};
  git_time_t time = 0;
  std::optional<WalkedCommit> commit;  // held until visited; released when the node turns out not to be the tip's
  uint32_t parents_begin = 0;
  uint32_t parents_count = 0;
  uint8_t flags = 0;
};

struct OidHash {
  size_t operator()(const git_oid& oid) const {
    size_t h;
    std::memcpy(&h, oid.id, sizeof(h));  // already uniformly distributed
    return h;
  }
};
struct OidEqual {
  bool operator()(const git_oid& a, const git_oid& b) const { return git_oid_equal(&a, &b) != 0; }
};

class Walker {
 public:
  Walker(const Repository& repo, const LimitedWalkInput& input) : repo_(repo), input_(input) {}

  Result<LimitedWalkResult> Run() {
    VT_RETURN_IF_ERROR(Discover(input_.tip, 0));
    for (const git_oid& oid : input_.hide) VT_RETURN_IF_ERROR(Discover(oid, kHidden));
    if (input_.floor && !Discover(*input_.floor, kBelowFloor).ok()) {
      return Unavailable("cutover commit " + OidHex(*input_.floor) + " is not in this repository");
    }
    std::vector<uint32_t> popped;  // the tip's commits as far as known when read, newest first
    git_time_t last_interesting = INT64_MAX;
    int slop = kSlop;
    while (!queue_.empty()) {
      uint32_t index = queue_.top().index;
      queue_.pop();
      Node& node = nodes_[index];
      node.flags &= ~kQueued;
      bool interesting = (node.flags & kUninteresting) == 0;
      if (interesting) --interesting_queued_;
      VT_RETURN_IF_ERROR(Expand(index));
      if (interesting) {
        last_interesting = nodes_[index].time;
        popped.push_back(index);
        continue;
      }
      nodes_[index].commit.reset();
      if (queue_.empty()) break;
      if (interesting_queued_ > 0 || last_interesting <= queue_.top().time) {
        slop = kSlop;
      } else if (--slop == 0) {
        break;
      }
    }
    return Finish(popped);
  }

 private:
  struct Queued {
    git_time_t time;
    uint64_t order;
    uint32_t index;
    // Newest first; among equal dates, first come first (libgit2's insert_by_date).
    bool operator<(const Queued& other) const {
      return time != other.time ? time < other.time : order > other.order;
    }
  };

  Status Failed() const {
    std::vector<git_oid> tips = {input_.tip};
    tips.insert(tips.end(), input_.hide.begin(), input_.hide.end());
    return HistoryReadFailure(repo_, tips, "revwalk");
  }

  // Reads a commit the first time it is reached and queues it; a commit
  // reached again takes on `flags` (and passes them to what it reached).
  Status Discover(const git_oid& oid, uint8_t flags) {
    auto [it, inserted] = index_.try_emplace(oid, static_cast<uint32_t>(nodes_.size()));
    if (!inserted) {
      Mark(it->second, flags);
      return Status::Ok();
    }
    Result<WalkedCommit> commit = WalkedCommit::Read(repo_, oid, input_.authors);
    if (!commit.ok()) {
      index_.erase(it);
      return Failed();
    }
    Node& node = nodes_.emplace_back();
    node.oid = oid;
    node.commit.emplace(std::move(commit.value()));
    node.time = node.commit->time();
    node.flags = flags | kQueued;
    if ((flags & kUninteresting) == 0) ++interesting_queued_;
    queue_.push({node.time, next_order_++, it->second});
    return Status::Ok();
  }

  // git's mark_parents_uninteresting: a hidden commit's ancestors already
  // read are hidden too, however they were reached.
  void Mark(uint32_t start, uint8_t flags) {
    flags &= kUninteresting;
    std::vector<uint32_t> stack = {start};
    while (!stack.empty()) {
      Node& node = nodes_[stack.back()];
      stack.pop_back();
      if ((node.flags & flags) == flags) continue;
      bool was_interesting = (node.flags & kUninteresting) == 0;
      node.flags |= flags;
      if (was_interesting && (node.flags & kQueued)) --interesting_queued_;
      for (uint32_t i = 0; (node.flags & kExpanded) && i < node.parents_count; ++i)
        stack.push_back(parent_store_[node.parents_begin + i]);
    }
  }

  // Reads the parents the walk follows: all of a hidden commit's, so the
  // hidden history is painted wherever it goes; only the first of the tip's
  // own in a first-parent walk, as git log --first-parent.
  Status Expand(uint32_t index) {
    const WalkedCommit& commit = *nodes_[index].commit;
    uint8_t flags = nodes_[index].flags & kUninteresting;
    unsigned count = commit.parent_count();
    if (input_.first_parent && flags == 0 && count > 1) count = 1;
    // Copied (into a buffer kept across calls): Discover adds nodes while these are read.
    std::vector<git_oid>& parents = parents_scratch_;
    parents.clear();
    for (unsigned i = 0; i < count; ++i) parents.push_back(commit.parent(i));
    uint32_t begin = static_cast<uint32_t>(parent_store_.size());
    for (const git_oid& parent : parents) {
      VT_RETURN_IF_ERROR(Discover(parent, flags));
      parent_store_.push_back(index_.at(parent));
    }
    // Discover added nodes: index again.
    Node& node = nodes_[index];
    node.parents_begin = begin;
    node.parents_count = static_cast<uint32_t>(parents.size());
    node.flags |= kExpanded;
    return Status::Ok();
  }

  bool Interesting(uint32_t index) const { return (nodes_[index].flags & kUninteresting) == 0; }

  // Drops what turned hidden after it was read, records the boundary, and
  // orders the rest as libgit2's sort_in_topological_order: a stack of the
  // commits whose children have all been emitted, parents pushed in order.
  LimitedWalkResult Finish(const std::vector<uint32_t>& popped) {
    LimitedWalkResult result;
    std::vector<uint32_t> children(nodes_.size(), 0);
    std::vector<uint32_t> boundary;
    std::vector<bool> on_boundary(nodes_.size(), false);
    auto add_boundary = [&](uint32_t index) {
      if (!on_boundary[index]) boundary.push_back(index);
      on_boundary[index] = true;
    };
    if (!Interesting(0)) add_boundary(0);
    for (uint32_t index : popped) {
      if (!Interesting(index)) continue;
      const Node& node = nodes_[index];
      for (uint32_t i = 0; i < node.parents_count; ++i) {
        uint32_t parent = parent_store_[node.parents_begin + i];
        if (Interesting(parent)) {
          ++children[parent];
        } else {
          add_boundary(parent);
        }
      }
    }
    for (uint32_t index : boundary) {
      uint8_t flags = nodes_[index].flags;
      result.boundary.push_back({nodes_[index].oid, (flags & kHidden) != 0, (flags & kBelowFloor) != 0});
    }
    result.commits.reserve(popped.size());
    std::vector<uint32_t> stack;
    for (auto it = popped.rbegin(); it != popped.rend(); ++it) {
      if (Interesting(*it) && children[*it] == 0) stack.push_back(*it);
    }
    while (!stack.empty()) {
      Node& node = nodes_[stack.back()];
      stack.pop_back();
      for (uint32_t i = 0; i < node.parents_count; ++i) {
        uint32_t parent = parent_store_[node.parents_begin + i];
        if (Interesting(parent) && --children[parent] == 0) stack.push_back(parent);
      }
      result.commits.push_back(std::move(*node.commit));
      node.commit.reset();
    }
    return result;
  }

  const Repository& repo_;
  const LimitedWalkInput& input_;
  // A deque: nodes hold their commits until visited, and a growing vector
  // copied them all at every doubling (470 page faults over 5,000 commits).
  std::deque<Node> nodes_;
  std::vector<uint32_t> parent_store_;
  std::vector<git_oid> parents_scratch_;
  std::unordered_map<git_oid, uint32_t, OidHash, OidEqual> index_;
  std::priority_queue<Queued> queue_;
  uint64_t next_order_ = 0;
  int interesting_queued_ = 0;
};

}  // namespace

Result<LimitedWalkResult> RunLimitedWalk(const Repository& repo, const LimitedWalkInput& input) {
  return Walker(repo, input).Run();
}

}  // namespace vt::gate
