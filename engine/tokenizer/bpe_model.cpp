#include "engine/tokenizer/bpe_model.h"

#include <algorithm>
#include <cstdio>
#include <queue>

#include "engine/tokenizer/utf8.h"

namespace vt {

namespace {
constexpr size_t kMaxCacheEntries = 1 << 16;
constexpr size_t kMaxCachedWordBytes = 256;
}  // namespace

BpeModel::BpeModel(BpeModel&& o) noexcept { *this = std::move(o); }

BpeModel& BpeModel::operator=(BpeModel&& o) noexcept {
  vocab_ = std::move(o.vocab_);
  id_to_token_ = std::move(o.id_to_token_);
  merges_ = std::move(o.merges_);
  unk_id_ = o.unk_id_;
  std::copy(std::begin(o.byte_ids_), std::end(o.byte_ids_), std::begin(byte_ids_));
  byte_fallback_ = o.byte_fallback_;
  fuse_unk_ = o.fuse_unk_;
  ignore_merges_ = o.ignore_merges_;
  return *this;
}

Result<BpeModel> BpeModel::FromParts(std::unordered_map<std::string, int32_t> vocab,
                                     const std::vector<std::pair<std::string, std::string>>& merges,
                                     std::string unk_token, bool byte_fallback, bool fuse_unk, bool ignore_merges) {
  BpeModel m;
  int32_t max_id = -1;
  for (const auto& [token, id] : vocab) {
    if (id < 0) return InvalidArgument("tokenizer.json: token '" + token + "' has a negative id");
    max_id = std::max(max_id, id);
  }
  m.id_to_token_.resize(static_cast<size_t>(max_id + 1));
  for (const auto& [token, id] : vocab) m.id_to_token_[id] = token;
  m.vocab_ = std::move(vocab);
  for (size_t rank = 0; rank < merges.size(); ++rank) {
    const auto& [a, b] = merges[rank];
    const int32_t ia = m.TokenToId(a), ib = m.TokenToId(b), merged = m.TokenToId(a + b);
    if (ia < 0 || ib < 0 || merged < 0) {
      return InvalidArgument("tokenizer.json: merge " + std::to_string(rank) + " ('" + a + "', '" + b +
                             "') uses a token not in the vocabulary");
    }
    m.merges_.emplace(m.PairKey(ia, ib), MergeTarget{static_cast<int32_t>(rank), merged});
  }
  if (!unk_token.empty()) m.unk_id_ = m.TokenToId(unk_token);
  m.byte_fallback_ = byte_fallback;
  m.fuse_unk_ = fuse_unk;
  m.ignore_merges_ = ignore_merges;
  if (byte_fallback) {
    for (int b = 0; b < 256; ++b) {
      char name[8];
      std::snprintf(name, sizeof name, "<0x%02X>", b);
      m.byte_ids_[b] = m.TokenToId(name);
    }
  }
  return m;
}

int32_t BpeModel::TokenToId(std::string_view token) const {
  auto it = vocab_.find(std::string(token));
  return it == vocab_.end() ? -1 : it->second;
}

const std::string& BpeModel::IdToToken(int32_t id) const {
  static const std::string kEmpty;
  return id >= 0 && id < static_cast<int32_t>(id_to_token_.size()) ? id_to_token_[id] : kEmpty;
}

void BpeModel::Merge(std::vector<int32_t>* symbols) const {
  // HF's algorithm: a heap of candidate pairs ordered by (rank, position),
  // over a linked list of symbols, so a long word (a whole Llama 2 prompt is
  // one word) costs O(n log n) instead of a rescan per merge.
  std::vector<int32_t>& ids = *symbols;
  const int32_t n = static_cast<int32_t>(ids.size());
  if (n < 2) return;
  std::vector<int32_t> prev(n), next(n);
  std::vector<bool> alive(n, true);
  for (int32_t i = 0; i < n; ++i) {
    prev[i] = i - 1;
    next[i] = i + 1 < n ? i + 1 : -1;
  }
  struct Candidate {
    int32_t rank, pos, id;
    bool operator>(const Candidate& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
  };
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<Candidate>> heap;
  auto push = [&](int32_t pos) {
    if (pos < 0 || next[pos] < 0 || ids[pos] < 0 || ids[next[pos]] < 0) return;
    auto it = merges_.find(PairKey(ids[pos], ids[next[pos]]));
    if (it != merges_.end()) heap.push({it->second.rank, pos, it->second.id});
  };
  for (int32_t i = 0; i + 1 < n; ++i) push(i);
  while (!heap.empty()) {
    const Candidate c = heap.top();
    heap.pop();
    const int32_t right = next[c.pos];
    if (!alive[c.pos] || right < 0) continue;
    // Stale entries: the pair at this position changed since it was queued.
    auto it = merges_.find(PairKey(ids[c.pos], ids[right]));
    if (ids[c.pos] < 0 || ids[right] < 0 || it == merges_.end() || it->second.id != c.id) continue;
    ids[c.pos] = c.id;
    alive[right] = false;
    next[c.pos] = next[right];
    if (next[right] >= 0) prev[next[right]] = c.pos;
    push(prev[c.pos]);
    push(c.pos);
  }
  std::vector<int32_t> merged;
  for (int32_t i = 0; i >= 0; i = next[i]) merged.push_back(ids[i]);
  ids = std::move(merged);
}

void BpeModel::Tokenize(std::string_view word, std::vector<int32_t>* ids) const {
  if (word.empty()) return;
  const bool cacheable = word.size() <= kMaxCachedWordBytes;
  if (cacheable) {
    std::lock_guard<std::mutex> lock(cache_mu_);
    auto it = cache_.find(std::string(word));
    if (it != cache_.end()) {
      ids->insert(ids->end(), it->second.begin(), it->second.end());
      return;
    }
  }
  std::vector<int32_t> out;
  const int32_t whole = ignore_merges_ ? TokenToId(word) : -1;
  if (whole >= 0) {
    out.push_back(whole);
  } else {
    // Symbols start as characters; a character outside the vocabulary becomes
    // its UTF-8 bytes (byte_fallback) or the unknown token. Negative entries
    // mark unknowns so they never merge.
    std::vector<int32_t> symbols;
    std::vector<std::pair<char32_t, size_t>> chars = DecodeUtf8(word);
    for (size_t i = 0; i < chars.size(); ++i) {
      const size_t begin = chars[i].second;
      const size_t end = i + 1 < chars.size() ? chars[i + 1].second : word.size();
      const std::string_view ch = word.substr(begin, end - begin);
      const int32_t id = TokenToId(ch);
      if (id >= 0) {
        symbols.push_back(id);
      } else if (byte_fallback_ && std::all_of(ch.begin(), ch.end(), [&](char c) { return byte_ids_[static_cast<uint8_t>(c)] >= 0; })) {
        for (char c : ch) symbols.push_back(byte_ids_[static_cast<uint8_t>(c)]);
      } else if (unk_id_ >= 0) {
        if (!(fuse_unk_ && !symbols.empty() && symbols.back() == -2)) symbols.push_back(-2);
      }
    }
    Merge(&symbols);
    for (int32_t s : symbols) out.push_back(s == -2 ? unk_id_ : s);
  }
  ids->insert(ids->end(), out.begin(), out.end());
  if (cacheable) {
    std::lock_guard<std::mutex> lock(cache_mu_);
    if (cache_.size() >= kMaxCacheEntries) cache_.clear();
    cache_.emplace(std::string(word), std::move(out));
  }
}

}  // namespace vt
