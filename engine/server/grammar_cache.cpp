#include "engine/server/grammar_cache.h"

namespace vt::server {

GrammarCache::GrammarCache(std::shared_ptr<const grammar::TokenVocabulary> vocabulary, size_t capacity)
    : vocabulary_(std::move(vocabulary)), capacity_(capacity == 0 ? 1 : capacity) {}

Result<std::shared_ptr<const grammar::GrammarConstraint>> GrammarCache::Get(
    const std::string& key, const std::function<Result<grammar::Grammar>()>& compile) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = index_.find(key); it != index_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second);
      return it->second->second;
    }
  }
  // Compiled (mask table included) without the lock: a large schema must not stall every other
  // request's lookup.
  Result<grammar::Grammar> compiled = compile();
  if (!compiled.ok()) return compiled.status();
  Result<std::shared_ptr<const grammar::GrammarConstraint>> constrained = grammar::Constrain(std::move(*compiled), vocabulary_);
  if (!constrained.ok()) return constrained.status();
  std::shared_ptr<const grammar::GrammarConstraint> constraint = std::move(*constrained);
  std::lock_guard<std::mutex> lock(mu_);
  ++compiles_;
  // Another request may have compiled the same source meanwhile; the first one stays.
  if (auto it = index_.find(key); it != index_.end()) return it->second->second;
  lru_.emplace_front(key, constraint);
  index_[key] = lru_.begin();
  if (lru_.size() > capacity_) {
    index_.erase(lru_.back().first);
    lru_.pop_back();
  }
  return constraint;
}

size_t GrammarCache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return lru_.size();
}

int64_t GrammarCache::compiles() const {
  std::lock_guard<std::mutex> lock(mu_);
  return compiles_;
}

}  // namespace vt::server
