// A Markdown file as the record gates see it: its tables, links and sections,
// read from the cmark-gfm AST with the GFM table extension. Nothing here
// looks at raw lines, so links inside code spans and fences are never links,
// and escaped pipes never split cells.
#pragma once

#include <string>
#include <vector>

namespace vt::gate {

struct MdLink {
  std::string url;
  std::string text;
  int line = 0;
};

struct MdCell {
  std::string text;  // plain text, code spans unwrapped, trimmed
  std::vector<MdLink> links;
  std::vector<std::string> code_spans;  // literal contents of `code spans`
  int line = 0;
  bool missing = false;  // the row had fewer cells than the header: cmark-gfm padded it
};

struct MdRow {
  int line = 0;
  std::vector<MdCell> cells;
  bool excess = false;  // the row had more cells than the header: cmark-gfm dropped them
};

struct MdTable {
  int line = 0;
  std::vector<std::string> header;  // plain text of the header cells
  std::vector<MdRow> rows;
};

struct MdSection {
  std::string title;
  int level = 0;
  int line = 0;
  std::string body;  // plain text of everything up to the next heading of the same or a higher level
};

struct MdDocument {
  std::vector<MdTable> tables;
  std::vector<MdLink> links;  // every link and image, in document order
  std::vector<MdSection> sections;
  std::string text;  // plain text of the whole document (no HTML, no link targets)
};

MdDocument ParseMarkdown(const std::string& text);

}  // namespace vt::gate
