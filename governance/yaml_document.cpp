#include "governance/yaml_document.h"

#include <yaml.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <numeric>
#include <optional>

namespace vt::gate {
namespace {

bool IsNullSpelling(std::string_view s) {
  return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL";
}

// What an alias costs: a copy of the anchored node, so its size counts
// against the bounds at every use.
struct Anchor {
  YamlNode node;
  size_t nodes = 0;
  size_t text = 0;
  int height = 0;  // collections nested in it, itself included
};

void Measure(const YamlNode& node, Anchor& anchor, int depth) {
  anchor.nodes += 1;
  anchor.text += node.scalar.size();
  if (node.IsMap() || node.IsSequence()) anchor.height = std::max(anchor.height, depth + 1);
  for (const YamlEntry& entry : node.entries) {
    Measure(entry.key, anchor, depth + 1);
    Measure(entry.value, anchor, depth + 1);
  }
  for (const YamlNode& item : node.items) Measure(item, anchor, depth + 1);
}

std::string Text(const yaml_char_t* s) { return reinterpret_cast<const char*>(s); }

int LineAt(std::string_view text, size_t offset) {
  std::string_view before = text.substr(0, std::min(offset, text.size()));
  return 1 + static_cast<int>(std::count(before.begin(), before.end(), '\n'));
}

// Builds the tree from libyaml's events; the first error ends the parse.
class Composer {
 public:
  Composer(std::string_view text, const std::string& path) : text_(text), path_(path) {
    yaml_parser_initialize(&parser_);
    yaml_parser_set_encoding(&parser_, YAML_UTF8_ENCODING);
    yaml_parser_set_input_string(&parser_, reinterpret_cast<const unsigned char*>(text.data()), text.size());
  }
  ~Composer() { yaml_parser_delete(&parser_); }
  Composer(const Composer&) = delete;
  Composer& operator=(const Composer&) = delete;

  Result<YamlNode> Run() {
    while (true) {
      yaml_event_t event;
      if (!yaml_parser_parse(&parser_, &event)) return ParserError();
      Status status = Handle(event);
      bool end = event.type == YAML_STREAM_END_EVENT;
      yaml_event_delete(&event);
      if (!status.ok()) return status;
      if (end) break;
    }
    if (!root_) return YamlNode{};
    return std::move(*root_);
  }

 private:
  // An open mapping or sequence; a mapping holds its key until the value arrives.
  struct Frame {
    YamlNode node;
    std::string anchor;
    std::optional<YamlNode> key;
  };

  Status Error(int line, const std::string& message) const {
    return InvalidArgument(path_ + ":" + std::to_string(line) + ": " + message);
  }

  Status ParserError() const {
    std::string problem = parser_.problem ? parser_.problem : "cannot parse the document";
    switch (parser_.error) {
      case YAML_MEMORY_ERROR:
        return Error(1, "out of memory");
      case YAML_READER_ERROR:
        return Error(LineAt(text_, parser_.problem_offset), problem);
      default:
        if (parser_.context) {
          problem += std::string(" (") + parser_.context + " at line " +
                     std::to_string(parser_.context_mark.line + 1) + ")";
        }
        return Error(static_cast<int>(parser_.problem_mark.line) + 1, problem);
    }
  }

  Status Charge(size_t nodes, size_t text, int line) {
    nodes_ += nodes;
    text_bytes_ += text;
    if (nodes_ > kMaxYamlNodes || text_bytes_ > kMaxYamlTextBytes) {
      return Error(line, "the document expands past " + std::to_string(kMaxYamlNodes) + " nodes or " +
                             std::to_string(kMaxYamlTextBytes) + " bytes of text (an alias repeats its anchor)");
    }
    return Status::Ok();
  }

  Status Nest(int height, int line) const {
    if (static_cast<int>(open_.size()) + height > kMaxYamlDepth)
      return Error(line, "the document nests deeper than " + std::to_string(kMaxYamlDepth) + " levels");
    return Status::Ok();
  }

  Status RejectTag(const yaml_char_t* tag, int line) const {
    if (tag == nullptr) return Status::Ok();
    return Error(line, "tag '" + Text(tag) + "' is not supported (quote the value if it must stay text)");
  }

  Status Handle(const yaml_event_t& event) {
    int line = static_cast<int>(event.start_mark.line) + 1;
    switch (event.type) {
      case YAML_DOCUMENT_START_EVENT:
        if (documents_++ > 0) return Error(line, "a second document; the file must hold one");
        return Status::Ok();
      case YAML_SCALAR_EVENT:
        return Scalar(event, line);
      case YAML_SEQUENCE_START_EVENT:
        return Open(YamlKind::kSequence, event.data.sequence_start.tag, event.data.sequence_start.anchor, line);
      case YAML_MAPPING_START_EVENT:
        return Open(YamlKind::kMapping, event.data.mapping_start.tag, event.data.mapping_start.anchor, line);
      case YAML_SEQUENCE_END_EVENT:
      case YAML_MAPPING_END_EVENT:
        return Close();
      case YAML_ALIAS_EVENT:
        return Alias(Text(event.data.alias.anchor), line);
      default:
        return Status::Ok();
    }
  }

  Status Scalar(const yaml_event_t& event, int line) {
    const auto& scalar = event.data.scalar;
    VT_RETURN_IF_ERROR(RejectTag(scalar.tag, line));
    YamlNode node;
    node.line = line;
    node.scalar.assign(reinterpret_cast<const char*>(scalar.value), scalar.length);
    if (node.scalar.find('\0') != std::string::npos) return Error(line, "a scalar holds a NUL character");
    node.kind = scalar.style == YAML_PLAIN_SCALAR_STYLE && IsNullSpelling(node.scalar) ? YamlKind::kNull
                                                                                       : YamlKind::kScalar;
    VT_RETURN_IF_ERROR(Charge(1, node.scalar.size(), line));
    if (scalar.anchor) VT_RETURN_IF_ERROR(Remember(Text(scalar.anchor), node));
    return Add(std::move(node));
  }

  Status Open(YamlKind kind, const yaml_char_t* tag, const yaml_char_t* anchor, int line) {
    VT_RETURN_IF_ERROR(RejectTag(tag, line));
    VT_RETURN_IF_ERROR(Nest(1, line));
    VT_RETURN_IF_ERROR(Charge(1, 0, line));
    Frame frame;
    frame.node.kind = kind;
    frame.node.line = line;
    if (anchor) frame.anchor = Text(anchor);
    open_.push_back(std::move(frame));
    return Status::Ok();
  }

  Status Close() {
    Frame frame = std::move(open_.back());
    open_.pop_back();
    if (frame.node.IsMap()) VT_RETURN_IF_ERROR(RejectDuplicateKeys(frame.node));
    if (!frame.anchor.empty()) VT_RETURN_IF_ERROR(Remember(frame.anchor, frame.node));
    return Add(std::move(frame.node));
  }

  Status Alias(const std::string& name, int line) {
    auto it = anchors_.find(name);
    if (it == anchors_.end()) return Error(line, "alias '*" + name + "' names no anchor before it");
    const Anchor& anchor = it->second;
    VT_RETURN_IF_ERROR(Nest(anchor.height, line));
    VT_RETURN_IF_ERROR(Charge(anchor.nodes, anchor.text, line));
    return Add(anchor.node);
  }

  // The anchor keeps a copy (the node itself moves into its parent), charged
  // like an alias's: nested anchors must not multiply the memory unbounded.
  Status Remember(const std::string& name, const YamlNode& node) {
    Anchor anchor;
    Measure(node, anchor, 0);
    VT_RETURN_IF_ERROR(Charge(anchor.nodes, anchor.text, node.line));
    anchor.node = node;
    anchors_.insert_or_assign(name, std::move(anchor));
    return Status::Ok();
  }

  Status Add(YamlNode node) {
    if (open_.empty()) {
      root_ = std::move(node);
      return Status::Ok();
    }
    Frame& frame = open_.back();
    if (frame.node.IsSequence()) {
      frame.node.items.push_back(std::move(node));
    } else if (!frame.key) {
      if (!node.IsScalar()) return Error(node.line, "a key must be a scalar, not null, a mapping or a sequence");
      frame.key = std::move(node);
    } else {
      frame.node.entries.push_back({std::move(*frame.key), std::move(node)});
      frame.key.reset();
    }
    return Status::Ok();
  }

  // A repeated key would leave a reader one of two values, and a second
  // `trailers:` section would drop the first's rules silently. The earliest
  // repeat in document order is reported; sorting keeps a hostile mapping's
  // check at n log n.
  Status RejectDuplicateKeys(const YamlNode& map) const {
    const std::vector<YamlEntry>& entries = map.entries;
    if (entries.size() < 2) return Status::Ok();
    std::vector<size_t> order(entries.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return entries[a].key.scalar < entries[b].key.scalar; });
    std::optional<std::pair<size_t, size_t>> repeat;  // (repeat, first)
    for (size_t i = 1, first = order[0]; i < order.size(); ++i) {
      if (entries[order[i]].key.scalar != entries[order[i - 1]].key.scalar) {
        first = order[i];
      } else if (!repeat || order[i] < repeat->first) {
        repeat = {order[i], first};
      }
    }
    if (!repeat) return Status::Ok();
    const YamlNode& key = entries[repeat->first].key;
    return Error(key.line, "duplicate key '" + key.scalar + "' (first at line " +
                               std::to_string(entries[repeat->second].key.line) + "); only one would take effect");
  }

  std::string_view text_;
  const std::string& path_;
  yaml_parser_t parser_;
  std::vector<Frame> open_;
  std::map<std::string, Anchor> anchors_;
  std::optional<YamlNode> root_;
  int documents_ = 0;
  size_t nodes_ = 0;
  size_t text_bytes_ = 0;
};

}  // namespace

const YamlNode* YamlNode::Find(std::string_view key) const {
  for (const YamlEntry& entry : entries) {
    if (entry.key.scalar == key) return &entry.value;
  }
  return nullptr;
}

Result<YamlNode> ParseYaml(std::string_view text, const std::string& path) {
  if (text.size() > kMaxYamlBytes) {
    return InvalidArgument(path + ":1: the file is over " + std::to_string(kMaxYamlBytes) +
                           " bytes, more than a YAML file here may hold");
  }
  if (size_t nul = text.find('\0'); nul != std::string_view::npos) {
    return InvalidArgument(path + ":" + std::to_string(LineAt(text, nul)) + ": a NUL byte: the file is binary");
  }
  return Composer(text, path).Run();
}

Result<YamlNode> LoadYamlFile(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound(path + ": cannot read " + what);
  // Read in pieces and stop past the bound: a huge file costs no more than the bound.
  std::string text;
  char piece[4096];
  while (text.size() <= kMaxYamlBytes && (in.read(piece, sizeof piece) || in.gcount() > 0)) {
    text.append(piece, static_cast<size_t>(in.gcount()));
  }
  return ParseYaml(text, path);
}

}  // namespace vt::gate
