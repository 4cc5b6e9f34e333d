#include "engine/tokenizer/tokenizer.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "engine/tokenizer/added_tokens.h"
#include "engine/tokenizer/bpe_model.h"
#include "engine/tokenizer/byte_level.h"
#include "engine/tokenizer/nfc.h"
#include "engine/tokenizer/regex_splitter.h"
#include "engine/tokenizer/text_decoder.h"
#include "engine/tokenizer/utf8.h"

namespace vt {

namespace {

using nlohmann::json;

// GPT-2's pre-tokenizer, used by a ByteLevel pre-tokenizer with use_regex.
constexpr const char* kGpt2Pattern = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
constexpr const char* kMetaspace = "\xe2\x96\x81";  // ▁

std::string ReplaceAll(std::string s, const std::string& from, const std::string& to) {
  if (from.empty()) return s;
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  return s;
}

struct NormalizeStep {
  enum Kind { kPrepend, kReplace, kNfc } kind;
  std::string a, b;
};

struct PreTokenizeStep {
  enum Kind { kSplit, kByteLevel, kMetaspace } kind;
  std::shared_ptr<RegexSplitter> regex;  // kSplit, or kByteLevel with use_regex
  bool add_prefix_space = false;
  bool prepend_first_only = true;  // kMetaspace
};

struct TemplatePiece {
  bool is_sequence = false;
  std::vector<int32_t> ids;  // special token ids
};

Status ParseNormalizer(const json& j, std::vector<NormalizeStep>* out) {
  if (j.is_null()) return Status::Ok();
  const std::string type = j.value("type", "");
  if (type == "Sequence") {
    for (const json& n : j.at("normalizers")) VT_RETURN_IF_ERROR(ParseNormalizer(n, out));
    return Status::Ok();
  }
  if (type == "NFC") {
    out->push_back({NormalizeStep::kNfc, "", ""});
    return Status::Ok();
  }
  if (type == "Prepend") {
    out->push_back({NormalizeStep::kPrepend, j.at("prepend").get<std::string>(), ""});
    return Status::Ok();
  }
  if (type == "Replace" && j.at("pattern").contains("String")) {
    out->push_back({NormalizeStep::kReplace, j["pattern"]["String"].get<std::string>(), j.at("content").get<std::string>()});
    return Status::Ok();
  }
  return Unimplemented("tokenizer.json: normalizer '" + type + "' is not supported");
}

Status ParsePreTokenizer(const json& j, std::vector<PreTokenizeStep>* out) {
  if (j.is_null()) return Status::Ok();
  const std::string type = j.value("type", "");
  if (type == "Sequence") {
    for (const json& p : j.at("pretokenizers")) VT_RETURN_IF_ERROR(ParsePreTokenizer(p, out));
    return Status::Ok();
  }
  if (type == "Split") {
    if (!j.at("pattern").contains("Regex") || j.value("behavior", "") != "Isolated" || j.value("invert", false)) {
      return Unimplemented("tokenizer.json: only Split with a Regex, behavior Isolated, invert false is supported");
    }
    Result<std::shared_ptr<RegexSplitter>> r = RegexSplitter::Compile(j["pattern"]["Regex"].get<std::string>());
    if (!r.ok()) return r.status();
    out->push_back({PreTokenizeStep::kSplit, *r});
    return Status::Ok();
  }
  if (type == "ByteLevel") {
    PreTokenizeStep s{PreTokenizeStep::kByteLevel, nullptr};
    s.add_prefix_space = j.value("add_prefix_space", false);
    if (j.value("use_regex", true)) {
      Result<std::shared_ptr<RegexSplitter>> r = RegexSplitter::Compile(kGpt2Pattern);
      if (!r.ok()) return r.status();
      s.regex = *r;
    }
    out->push_back(s);
    return Status::Ok();
  }
  if (type == "Metaspace") {
    PreTokenizeStep s{PreTokenizeStep::kMetaspace, nullptr};
    const std::string scheme = j.value("prepend_scheme", j.value("add_prefix_space", true) ? "always" : "never");
    s.add_prefix_space = scheme != "never";
    s.prepend_first_only = scheme == "first";
    out->push_back(s);
    return Status::Ok();
  }
  return Unimplemented("tokenizer.json: pre-tokenizer '" + type + "' is not supported");
}

Status ParsePostProcessor(const json& j, const std::unordered_map<std::string, int32_t>& special,
                          std::vector<TemplatePiece>* out) {
  if (j.is_null()) return Status::Ok();
  const std::string type = j.value("type", "");
  if (type == "ByteLevel") return Status::Ok();  // offsets only; ids unchanged
  if (type == "Sequence") {
    for (const json& p : j.at("processors")) VT_RETURN_IF_ERROR(ParsePostProcessor(p, special, out));
    return Status::Ok();
  }
  if (type != "TemplateProcessing") return Unimplemented("tokenizer.json: post-processor '" + type + "' is not supported");
  out->clear();
  for (const json& piece : j.at("single")) {
    if (piece.contains("Sequence")) {
      out->push_back({true, {}});
      continue;
    }
    const std::string name = piece.at("SpecialToken").at("id").get<std::string>();
    const json& entry = j.at("special_tokens").at(name);
    TemplatePiece t;
    for (const json& id : entry.at("ids")) t.ids.push_back(id.get<int32_t>());
    out->push_back(t);
  }
  return Status::Ok();
}

}  // namespace

struct Tokenizer::Impl {
  BpeModel model;
  std::unique_ptr<AddedTokenMatcher> added;
  std::unordered_map<int32_t, AddedToken> added_by_id;
  std::vector<NormalizeStep> normalizers;
  std::vector<PreTokenizeStep> pre_tokenizers;
  std::vector<TemplatePiece> post;
  TextDecoder decoder;
  int64_t vocab_size = 0;
  int64_t max_input_bytes_per_token = 0;

  // See Tokenizer::max_input_bytes_per_token. Normalizing and pre-tokenizing only lengthen text
  // (prepended text, '▁' for ' ', two-byte byte-level characters for one byte) except where noted
  // below, so the longest token string bounds the input bytes one token covers.
  int64_t ComputeMaxInputBytesPerToken() const {
    if (model.fuse_unk()) return 0;
    for (const AddedToken& t : added->tokens()) {
      if (t.lstrip || t.rstrip) return 0;
    }
    const bool byte_level = std::any_of(pre_tokenizers.begin(), pre_tokenizers.end(),
                                        [](const PreTokenizeStep& p) { return p.kind == PreTokenizeStep::kByteLevel; });
    // Byte-level strings spell each input byte as one character; otherwise an unknown character
    // (up to 4 bytes) may become one token.
    int64_t longest = byte_level ? 1 : 4;
    for (int32_t id = 0; id <= model.max_id(); ++id) {
      const std::string& token = model.IdToToken(id);
      const auto chars = std::count_if(token.begin(), token.end(), [](char c) { return (c & 0xC0) != 0x80; });
      longest = std::max<int64_t>(longest, byte_level ? chars : static_cast<int64_t>(token.size()));
    }
    for (const AddedToken& t : added->tokens()) longest = std::max<int64_t>(longest, static_cast<int64_t>(t.content.size()));
    int64_t shrink = 1;
    for (const NormalizeStep& n : normalizers) {
      if (n.kind == NormalizeStep::kReplace && n.b.empty()) return 0;
      if (n.kind == NormalizeStep::kReplace) {
        shrink *= std::max<int64_t>(1, static_cast<int64_t>((n.a.size() + n.b.size() - 1) / n.b.size()));
      }
      // NFC composes at most 3 code points into one: Hangul L+V+T jamo, 9 bytes, become one
      // 3-byte syllable; 4 leaves a margin.
      if (n.kind == NormalizeStep::kNfc) shrink *= 4;
    }
    return longest * shrink;
  }

  std::string Normalize(std::string_view text) const {
    std::string s(text);
    for (const NormalizeStep& n : normalizers) {
      switch (n.kind) {
        case NormalizeStep::kPrepend:
          if (!s.empty()) s = n.a + s;
          break;
        case NormalizeStep::kReplace:
          s = ReplaceAll(std::move(s), n.a, n.b);
          break;
        case NormalizeStep::kNfc:
          s = ComposeNfc(s);
          break;
      }
    }
    return s;
  }

  // Splits normalized text into words and encodes each with the BPE model.
  void EncodeSegment(std::string_view text, bool first_segment, std::vector<int32_t>* ids) const {
    const std::string normalized = Normalize(text);
    std::vector<std::string> words = {normalized};
    for (const PreTokenizeStep& p : pre_tokenizers) {
      std::vector<std::string> next;
      for (const std::string& w : words) {
        switch (p.kind) {
          case PreTokenizeStep::kSplit:
            for (std::string_view piece : p.regex->Split(w)) next.emplace_back(piece);
            break;
          case PreTokenizeStep::kByteLevel: {
            const std::string prefixed = p.add_prefix_space && !w.empty() && w[0] != ' ' ? " " + w : w;
            if (p.regex) {
              for (std::string_view piece : p.regex->Split(prefixed)) next.push_back(BytesToByteLevel(piece));
            } else {
              next.push_back(BytesToByteLevel(prefixed));
            }
            break;
          }
          case PreTokenizeStep::kMetaspace: {
            std::string m = ReplaceAll(w, " ", kMetaspace);
            if (p.add_prefix_space && (first_segment || !p.prepend_first_only) && m.rfind(kMetaspace, 0) != 0) {
              m = kMetaspace + m;
            }
            next.push_back(m);
            break;
          }
        }
      }
      words = std::move(next);
    }
    for (const std::string& w : words) model.Tokenize(w, ids);
  }
};

Tokenizer::Tokenizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Tokenizer::~Tokenizer() = default;

Result<std::shared_ptr<Tokenizer>> Tokenizer::FromJson(const std::string& text) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return InvalidArgument("tokenizer.json: not a JSON object");
  auto impl = std::make_unique<Impl>();
  try {
    const json& m = j.at("model");
    if (m.value("type", "BPE") != "BPE") {
      return Unimplemented("tokenizer.json: model type '" + m.value("type", "") + "' is not supported (BPE is)");
    }
    std::unordered_map<std::string, int32_t> vocab = m.at("vocab").get<std::unordered_map<std::string, int32_t>>();
    std::vector<std::pair<std::string, std::string>> merges;
    for (const json& merge : m.at("merges")) {
      if (merge.is_array()) {
        merges.emplace_back(merge.at(0).get<std::string>(), merge.at(1).get<std::string>());
      } else {
        const std::string s = merge.get<std::string>();
        const size_t space = s.find(' ', 1);
        if (space == std::string::npos) return InvalidArgument("tokenizer.json: merge '" + s + "' has no space");
        merges.emplace_back(s.substr(0, space), s.substr(space + 1));
      }
    }
    const std::string unk = m.contains("unk_token") && m["unk_token"].is_string() ? m["unk_token"].get<std::string>() : "";
    const auto flag = [&](const char* key) { return m.contains(key) && m[key].is_boolean() && m[key].get<bool>(); };
    Result<BpeModel> model =
        BpeModel::FromParts(std::move(vocab), merges, unk, flag("byte_fallback"), flag("fuse_unk"), flag("ignore_merges"));
    if (!model.ok()) return model.status();
    impl->model = std::move(model.value());
    impl->vocab_size = impl->model.max_id() + 1;

    std::vector<AddedToken> added;
    std::unordered_map<std::string, int32_t> special_by_name;
    if (j.contains("added_tokens")) {
      for (const json& a : j["added_tokens"]) {
        AddedToken t{a.at("id").get<int32_t>(), a.at("content").get<std::string>(), a.value("special", false),
                     a.value("lstrip", false), a.value("rstrip", false), a.value("single_word", false)};
        impl->vocab_size = std::max<int64_t>(impl->vocab_size, t.id + 1);
        impl->added_by_id[t.id] = t;
        special_by_name[t.content] = t.id;
        added.push_back(t);
      }
    }
    impl->added = std::make_unique<AddedTokenMatcher>(std::move(added));
    VT_RETURN_IF_ERROR(ParseNormalizer(j.value("normalizer", json()), &impl->normalizers));
    VT_RETURN_IF_ERROR(ParsePreTokenizer(j.value("pre_tokenizer", json()), &impl->pre_tokenizers));
    VT_RETURN_IF_ERROR(ParsePostProcessor(j.value("post_processor", json()), special_by_name, &impl->post));
    Result<TextDecoder> decoder = TextDecoder::FromJson(j.value("decoder", json()));
    if (!decoder.ok()) return decoder.status();
    impl->decoder = std::move(decoder.value());
    impl->max_input_bytes_per_token = impl->ComputeMaxInputBytesPerToken();
  } catch (const json::exception& e) {
    return InvalidArgument(std::string("tokenizer.json: ") + e.what());
  }
  return std::shared_ptr<Tokenizer>(new Tokenizer(std::move(impl)));
}

Result<std::shared_ptr<Tokenizer>> Tokenizer::FromFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound(path + ": cannot open");
  std::ostringstream s;
  s << in.rdbuf();
  Result<std::shared_ptr<Tokenizer>> t = FromJson(s.str());
  if (!t.ok()) return Status(t.status().code(), path + ": " + t.status().message());
  return t;
}

std::vector<int32_t> Tokenizer::Encode(std::string_view raw, bool add_special_tokens) const {
  const std::string text = SanitizeUtf8(raw);
  std::vector<int32_t> ids;
  bool first = true;
  for (const TextSegment& seg : impl_->added->Split(text)) {
    if (seg.added_id >= 0) {
      ids.push_back(seg.added_id);
    } else {
      impl_->EncodeSegment(seg.text, first, &ids);
    }
    first = false;
  }
  if (!add_special_tokens || impl_->post.empty()) return ids;
  std::vector<int32_t> out;
  for (const TemplatePiece& p : impl_->post) {
    if (p.is_sequence) {
      out.insert(out.end(), ids.begin(), ids.end());
    } else {
      out.insert(out.end(), p.ids.begin(), p.ids.end());
    }
  }
  return out;
}

std::string Tokenizer::Decode(const std::vector<int32_t>& ids, bool skip_special_tokens) const {
  std::vector<std::string> tokens;
  for (int32_t id : ids) {
    auto added = impl_->added_by_id.find(id);
    if (added != impl_->added_by_id.end()) {
      if (skip_special_tokens && added->second.special) continue;
      tokens.push_back(added->second.content);
    } else {
      tokens.push_back(impl_->model.IdToToken(id));
    }
  }
  return impl_->decoder.Decode(std::move(tokens));
}

std::vector<std::string> Tokenizer::TokenBytesTable() const {
  std::vector<std::string> table(static_cast<size_t>(impl_->vocab_size));
  for (int32_t id = 0; id <= impl_->model.max_id(); ++id) {
    if (impl_->added_by_id.count(id) == 0) table[size_t(id)] = impl_->decoder.TokenBytes(impl_->model.IdToToken(id));
  }
  for (const auto& [id, t] : impl_->added_by_id) {
    if (!t.special && id >= 0 && id < impl_->vocab_size) table[size_t(id)] = t.content;
  }
  return table;
}

int32_t Tokenizer::TokenToId(std::string_view token) const {
  for (const auto& [id, t] : impl_->added_by_id) {
    if (t.content == token) return id;
  }
  return impl_->model.TokenToId(token);
}

int64_t Tokenizer::vocab_size() const { return impl_->vocab_size; }

int64_t Tokenizer::max_input_bytes_per_token() const { return impl_->max_input_bytes_per_token; }

bool Tokenizer::IsSpecial(int32_t id) const {
  auto it = impl_->added_by_id.find(id);
  return it != impl_->added_by_id.end() && it->second.special;
}

}  // namespace vt
