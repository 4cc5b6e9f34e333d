// Anchors and relative links of the record: a Markdown link (relative to the
// file that holds it, `#L10` or `#L10-L20` for lines) or a `path:line[-line]`
// text (relative to the repository root) must name an existing file, and its
// lines must exist. File line counts are cached: a record of 1,000 rows links
// the same few hundred files over and over.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "governance/file_source.h"
#include "governance/markdown.h"

namespace vt::gate {

struct AnchorTarget {
  std::string path;  // normalised, relative to the repository root
  int first = 0;     // 0 when the anchor names no lines
  int last = 0;
  bool has_fragment = false;  // a `#...` that is not a line anchor: only the file is checked
};

// A relative link of `from_file` (repository-relative), or nullopt for links
// this gate does not resolve: URLs with a scheme, mailto:, same-file `#...`.
std::optional<AnchorTarget> LinkTarget(const std::string& from_file, const std::string& url);

// `path:12` or `path:12-20` text, or nullopt when `text` is not of that form.
std::optional<AnchorTarget> TextTarget(const std::string& text);

class AnchorChecker {
 public:
  explicit AnchorChecker(const FileSource& source) : source_(source) {}

  // Empty when the target resolves; else why not ("no such file", "line 90 is past the end (80 lines)").
  std::string Check(const AnchorTarget& target);

 private:
  const FileSource& source_;
  std::map<std::string, int> line_counts_;  // -1: not a regular file
};

// The anchors of a table cell: its relative links and its `path:line` words.
std::vector<AnchorTarget> CellAnchors(const std::string& from_file, const MdCell& cell);

// True when `path` lies under one of `prefixes` (no prefixes: anywhere).
bool UnderPrefix(const std::string& path, const std::vector<std::string>& prefixes);

}  // namespace vt::gate
