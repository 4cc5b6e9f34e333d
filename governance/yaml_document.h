// A YAML document as a tree of scalars, mappings and sequences, read with
// libyaml's event parser: vt-gate's config and the CUDA feature table are
// read once per hook run, and yaml-cpp spent 4.2M instructions on the 3.3 KB
// `.vt-gate.yaml` (roadmap/specs/GATE-CI-GOVERNANCE.md).
//
// Values are text: booleans and numbers are the reader's business. A plain
// `~`, `null`, `Null`, `NULL` or nothing is null. Every node carries its
// 1-based line. A file is hostile until parsed, so anything the readers do not
// need is an error, never a crash or an unbounded cost: tags, a second
// document, duplicate keys, non-scalar keys, NUL bytes, invalid UTF-8, files
// over kMaxYamlBytes, nesting deeper than kMaxYamlDepth. Aliases are resolved
// to copies of what their anchors name, within kMaxYamlNodes nodes and
// kMaxYamlTextBytes of scalar text, so "billion laughs" stops at the bound.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace vt::gate {

inline constexpr size_t kMaxYamlBytes = size_t{1} << 20;
inline constexpr int kMaxYamlDepth = 64;  // nested mappings and sequences
inline constexpr size_t kMaxYamlNodes = 100'000;
inline constexpr size_t kMaxYamlTextBytes = 4 * kMaxYamlBytes;

enum class YamlKind { kNull, kScalar, kMapping, kSequence };

struct YamlEntry;

struct YamlNode {
  YamlKind kind = YamlKind::kNull;
  int line = 1;
  std::string scalar;              // a scalar's text (a key's too)
  std::vector<YamlEntry> entries;  // a mapping's, in document order; keys are scalars, each once
  std::vector<YamlNode> items;     // a sequence's

  bool IsNull() const { return kind == YamlKind::kNull; }
  bool IsScalar() const { return kind == YamlKind::kScalar; }
  bool IsMap() const { return kind == YamlKind::kMapping; }
  bool IsSequence() const { return kind == YamlKind::kSequence; }
  // A mapping's value for `key`; nullptr when absent or when this is no mapping.
  const YamlNode* Find(std::string_view key) const;
};

struct YamlEntry {
  YamlNode key;
  YamlNode value;
};

// The document in `text`; an empty one (or only comments) is a null node.
// Errors read "PATH:LINE: message".
Result<YamlNode> ParseYaml(std::string_view text, const std::string& path);

// Reads and parses the file at `path`; kNotFound reads "PATH: cannot read WHAT".
Result<YamlNode> LoadYamlFile(const std::string& path, const std::string& what);

}  // namespace vt::gate
