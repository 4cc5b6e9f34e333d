// The served model's structured-output constraints: the vocabulary the token masks walk, built
// once per model from its tokenizer, and the compiled grammars of the last few distinct sources.
// Agents send the same schema with every request, so a hit skips the compile; the bound keeps a
// client that sends a new schema each time from growing the server without end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

#include "base/status.h"
#include "engine/grammar/grammar_constraint.h"

namespace vt::server {

class GrammarCache {
 public:
  GrammarCache(std::shared_ptr<const grammar::TokenVocabulary> vocabulary, size_t capacity);

  // The constraint compiled from the source `key` names (its kind and canonical text); `compile`
  // runs on a miss, outside the lock, and its error is returned as is (errors are not cached).
  Result<std::shared_ptr<const grammar::GrammarConstraint>> Get(const std::string& key,
                                                               const std::function<Result<grammar::Grammar>()>& compile);

  size_t size() const;
  int64_t compiles() const;  // misses that compiled successfully

 private:
  using Entry = std::pair<std::string, std::shared_ptr<const grammar::GrammarConstraint>>;

  std::shared_ptr<const grammar::TokenVocabulary> vocabulary_;
  size_t capacity_;
  mutable std::mutex mu_;
  std::list<Entry> lru_;  // most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
  int64_t compiles_ = 0;
};

}  // namespace vt::server
