// The BPE model of tokenizer.json: a vocabulary, ranked merges, and the
// options the Llama / Qwen files use (byte_fallback, fuse_unk, ignore_merges).
// Merging follows HF tokenizers exactly: repeatedly merge the adjacent pair
// of lowest rank, leftmost first.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/status.h"

namespace vt {

class BpeModel {
 public:
  // Builds the model from tokenizer.json's "model" fields.
  static Result<BpeModel> FromParts(std::unordered_map<std::string, int32_t> vocab,
                                    const std::vector<std::pair<std::string, std::string>>& merges,
                                    std::string unk_token, bool byte_fallback, bool fuse_unk, bool ignore_merges);

  // Appends the ids of one pre-tokenized word.
  void Tokenize(std::string_view word, std::vector<int32_t>* ids) const;

  int32_t TokenToId(std::string_view token) const;  // -1 when absent
  const std::string& IdToToken(int32_t id) const;   // empty when absent
  int32_t max_id() const { return static_cast<int32_t>(id_to_token_.size()) - 1; }
  bool fuse_unk() const { return fuse_unk_ && unk_id_ >= 0; }  // runs of unknown characters become one token

  BpeModel(BpeModel&& other) noexcept;
  BpeModel& operator=(BpeModel&& other) noexcept;
  BpeModel() = default;

 private:
  void Merge(std::vector<int32_t>* symbols) const;
  uint64_t PairKey(int32_t a, int32_t b) const {
    return (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) | static_cast<uint32_t>(b);
  }

  std::unordered_map<std::string, int32_t> vocab_;
  std::vector<std::string> id_to_token_;
  struct MergeTarget {
    int32_t rank;
    int32_t id;
  };
  std::unordered_map<uint64_t, MergeTarget> merges_;
  int32_t unk_id_ = -1;
  int32_t byte_ids_[256] = {};  // <0xXX> tokens for byte fallback, -1 where absent
  bool byte_fallback_ = false;
  bool fuse_unk_ = false;
  bool ignore_merges_ = false;

  // Words repeat a lot in real text; caching their ids makes encoding several
  // times faster. Bounded, and guarded so one tokenizer can serve threads.
  mutable std::mutex cache_mu_;
  mutable std::unordered_map<std::string, std::vector<int32_t>> cache_;
};

}  // namespace vt
