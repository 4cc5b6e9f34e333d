#include "governance/markdown.h"

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>

#include <memory>
#include <mutex>

namespace vt::gate {
namespace {

struct NodeDeleter {
  void operator()(cmark_node* node) const { cmark_node_free(node); }
};
struct ParserDeleter {
  void operator()(cmark_parser* parser) const { cmark_parser_free(parser); }
};

std::string Trim(const std::string& s) {
  size_t begin = s.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return "";
  return s.substr(begin, s.find_last_not_of(" \t\r\n") - begin + 1);
}

std::string Literal(cmark_node* node) {
  const char* literal = cmark_node_get_literal(node);
  return literal ? literal : "";
}

// Inline nodes carry their own position in cmark-gfm 0.29; some (soft
// breaks) do not, and then the nearest positioned ancestor answers.
int LineOf(cmark_node* node) {
  for (cmark_node* n = node; n != nullptr; n = cmark_node_parent(n)) {
    if (int line = cmark_node_get_start_line(n)) return line;
  }
  return 0;
}

// Plain text of a subtree: text, code spans and code blocks; breaks become spaces.
void AppendText(cmark_node* root, std::string& out, std::vector<MdLink>* links,
                std::vector<std::string>* code_spans) {
  std::unique_ptr<cmark_iter, void (*)(cmark_iter*)> it(cmark_iter_new(root), cmark_iter_free);
  cmark_event_type event;
  while ((event = cmark_iter_next(it.get())) != CMARK_EVENT_DONE) {
    cmark_node* node = cmark_iter_get_node(it.get());
    cmark_node_type type = cmark_node_get_type(node);
    if (event == CMARK_EVENT_EXIT) {
      if (type == CMARK_NODE_PARAGRAPH || type == CMARK_NODE_HEADING || type == CMARK_NODE_ITEM) out += '\n';
      continue;
    }
    switch (type) {
      case CMARK_NODE_TEXT:
        out += Literal(node);
        break;
      case CMARK_NODE_CODE:
        out += Literal(node);
        if (code_spans) code_spans->push_back(Literal(node));
        break;
      case CMARK_NODE_CODE_BLOCK:
        out += Literal(node) + "\n";
        break;
      case CMARK_NODE_SOFTBREAK:
      case CMARK_NODE_LINEBREAK:
        out += ' ';
        break;
      case CMARK_NODE_LINK:
      case CMARK_NODE_IMAGE:
        if (links) {
          std::string text;
          AppendText(node, text, nullptr, nullptr);
          const char* url = cmark_node_get_url(node);
          links->push_back({url ? url : "", Trim(text), LineOf(node)});
        }
        break;
      default:
        break;
    }
  }
}

bool IsType(cmark_node* node, const char* name) {
  const char* type = cmark_node_get_type_string(node);
  return type && std::string(type) == name;
}

MdTable ReadTable(cmark_node* table) {
  MdTable out;
  out.line = cmark_node_get_start_line(table);
  for (cmark_node* row = cmark_node_first_child(table); row; row = cmark_node_next(row)) {
    bool header = IsType(row, "table_header");
    MdRow md_row;
    md_row.line = cmark_node_get_start_line(row);
    int last_cell_end = 0;
    for (cmark_node* cell = cmark_node_first_child(row); cell; cell = cmark_node_next(cell)) {
      MdCell md_cell;
      md_cell.line = md_row.line;
      // A cell cmark-gfm inserted to pad a short row has no source position.
      md_cell.missing = cmark_node_get_start_column(cell) == 0;
      AppendText(cell, md_cell.text, &md_cell.links, &md_cell.code_spans);
      md_cell.text = Trim(md_cell.text);
      if (!md_cell.missing) last_cell_end = cmark_node_get_end_column(cell);
      if (header) {
        out.header.push_back(md_cell.text);
      } else {
        md_row.cells.push_back(std::move(md_cell));
      }
    }
    // Cells past the header's count are dropped from the AST, but the row's
    // own extent still covers them: more than the closing pipe after the last cell.
    md_row.excess = cmark_node_get_end_column(row) > last_cell_end + 1;
    if (!header) out.rows.push_back(std::move(md_row));
  }
  return out;
}

void RegisterExtensions() {
  static std::once_flag once;
  std::call_once(once, [] { cmark_gfm_core_extensions_ensure_registered(); });
}

}  // namespace

MdDocument ParseMarkdown(const std::string& text) {
  RegisterExtensions();
  std::unique_ptr<cmark_parser, ParserDeleter> parser(cmark_parser_new(CMARK_OPT_DEFAULT));
  cmark_parser_attach_syntax_extension(parser.get(), cmark_find_syntax_extension("table"));
  cmark_parser_feed(parser.get(), text.data(), text.size());
  std::unique_ptr<cmark_node, NodeDeleter> document(cmark_parser_finish(parser.get()));

  MdDocument doc;
  AppendText(document.get(), doc.text, &doc.links, nullptr);
  for (cmark_node* block = cmark_node_first_child(document.get()); block; block = cmark_node_next(block)) {
    if (cmark_node_get_type(block) == CMARK_NODE_HEADING) {
      MdSection section;
      section.level = cmark_node_get_heading_level(block);
      section.line = cmark_node_get_start_line(block);
      AppendText(block, section.title, nullptr, nullptr);
      section.title = Trim(section.title);
      doc.sections.push_back(std::move(section));
      continue;
    }
    if (IsType(block, "table")) doc.tables.push_back(ReadTable(block));
    std::string body;
    AppendText(block, body, nullptr, nullptr);
    // A block belongs to the latest heading and to every enclosing one.
    int level = 7;
    for (auto s = doc.sections.rbegin(); s != doc.sections.rend(); ++s) {
      if (s->level < level) {
        s->body += body;
        level = s->level;
      }
    }
  }
  for (MdSection& section : doc.sections) section.body = Trim(section.body);
  return doc;
}

}  // namespace vt::gate
