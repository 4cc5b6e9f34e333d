#include "governance/record.h"

#include <algorithm>
#include <cctype>

namespace vt::gate {
namespace {

// Header cell text -> column meaning, by the configured aliases.
std::map<Column, size_t> MapColumns(const MdTable& table, const RecordConfig& config) {
  std::map<Column, size_t> columns;
  for (size_t i = 0; i < table.header.size(); ++i) {
    std::string name = AsciiLower(table.header[i]);
    for (const auto& [alias, column] : config.aliases) {
      if (alias == name) {
        columns.emplace(column, i);
        break;
      }
    }
  }
  return columns;
}

void CheckCellCount(const RecordFile& file, const MdTable& table, const MdRow& row, Record& record) {
  size_t present = 0;
  for (const MdCell& cell : row.cells) present += !cell.missing;
  if (present == table.header.size() && !row.excess) return;
  record.malformed.push_back({"cells", "", file.path, row.line,
                              std::string("the row has ") + (row.excess ? "more" : "fewer") +
                                  " cells than the " + std::to_string(table.header.size()) +
                                  " of its header (line " + std::to_string(table.line) + ")"});
}

void ReadTables(const RecordFile& file, const RecordConfig& config, Record& record) {
  for (const MdTable& table : file.doc.tables) {
    std::map<Column, size_t> columns = MapColumns(table, config);
    auto has = [&](Column c) { return columns.count(c) > 0; };
    bool rows = has(Column::kId) && has(Column::kState);
    bool intake = has(Column::kIssue) && has(Column::kId) && !has(Column::kState);
    bool summary = has(Column::kState) && has(Column::kCount) && !has(Column::kId);
    bool claims = has(Column::kOwner) && !has(Column::kId) && !has(Column::kState);
    if (!rows && !intake && !summary && !claims) continue;
    for (const MdRow& row : table.rows) {
      CheckCellCount(file, table, row, record);
      auto cell = [&](Column c) { return row.cells.at(columns.at(c)); };
      if (rows) {
        RecordRow out;
        out.file = file.path;
        out.line = row.line;
        for (const auto& [column, index] : columns) out.cells.emplace(column, row.cells.at(index));
        std::vector<std::string> words = CellWords(cell(Column::kId));
        out.id = words.size() == 1 ? words[0] : cell(Column::kId).text;
        record.rows.push_back(std::move(out));
      } else if (intake) {
        record.intake.push_back({file.path, row.line, cell(Column::kIssue), cell(Column::kId)});
      } else if (summary) {
        record.summaries.push_back(
            {file.path, row.line, cell(Column::kState).text, cell(Column::kCount).text});
      } else {
        for (const std::string& owner : CellWords(cell(Column::kOwner)))
          record.claims.push_back({owner, file.path, row.line});
      }
    }
  }
}

}  // namespace

std::string AsciiLower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool IsIdChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_'; }

const MdCell* RecordRow::Cell(Column column) const {
  auto it = cells.find(column);
  return it == cells.end() ? nullptr : &it->second;
}

std::vector<std::string> Record::SortedIds() const {
  std::vector<std::string> ids;
  for (const RecordRow& row : rows) ids.push_back(row.id);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

const RecordRow* Record::Find(const std::string& id) const {
  for (const RecordRow& row : rows) {
    if (row.id == id) return &row;
  }
  return nullptr;
}

Result<Record> LoadRecord(const FileSource& source, const RecordConfig& config,
                          const std::vector<std::string>* only_ids) {
  auto holds_them = [&](const Record& record) {
    return std::all_of(only_ids->begin(), only_ids->end(),
                       [&](const std::string& id) { return record.Find(id) != nullptr; });
  };
  auto mentions_one = [&](const std::string& text) {
    return std::any_of(only_ids->begin(), only_ids->end(),
                       [&](const std::string& id) { return text.find(id) != std::string::npos; });
  };
  Record record;
  std::vector<std::string> read;  // every path read, in glob order (a path two globs match is read once)
  bool passed_over = false;       // a file was not parsed: it did not mention a wanted id
  for (const std::string& glob : config.files) {
    std::vector<std::string> paths = source.Glob(glob);
    if (paths.empty()) return NotFound("record: no file matches '" + glob + "' in " + source.name());
    for (const std::string& path : paths) {
      if (only_ids != nullptr && holds_them(record)) return record;
      if (std::find(read.begin(), read.end(), path) != read.end()) continue;
      read.push_back(path);
      std::optional<std::string> text = source.Read(path);
      if (!text) return NotFound(path + ": cannot read it from " + source.name());
      if (only_ids != nullptr && !mentions_one(*text)) {
        passed_over = true;
        continue;
      }
      record.files.push_back({path, ParseMarkdown(*text)});
      ReadTables(record.files.back(), config, record);
    }
  }
  if (!passed_over || holds_them(record)) return record;
  // A row can spell its id without its characters in a row (a backslash escape, a character
  // reference): before an id is called missing, the whole record. Only then, so the common case
  // (every id a row, spelled plainly) reads no file twice.
  return LoadRecord(source, config);
}

Result<Record> LoadRecordAt(const Repository& repo, const git_oid& commit, const RecordConfig& config) {
  Result<FileSource> source = FileSource::Commit(repo, commit);
  if (!source.ok()) return source.status();
  return LoadRecord(source.value(), config);
}

std::vector<std::string> CellWords(const MdCell& cell) {
  std::vector<std::string> words;
  std::string word;
  auto flush = [&] {
    while (!word.empty() && std::string(".;:").find(word.back()) != std::string::npos) word.pop_back();
    if (!word.empty()) words.push_back(word);
    word.clear();
  };
  for (char c : cell.text) {
    if (std::isspace(static_cast<unsigned char>(c)) || c == ',' || c == '`' || c == '/') {
      flush();
    } else {
      word += c;
    }
  }
  flush();
  return words;
}

bool ContainsToken(const std::string& text, const std::string& token) {
  if (token.empty()) return false;
  for (size_t at = text.find(token); at != std::string::npos; at = text.find(token, at + 1)) {
    bool left = at == 0 || !IsIdChar(text[at - 1]);
    size_t end = at + token.size();
    bool right = end >= text.size() || !IsIdChar(text[end]);
    if (left && right) return true;
  }
  return false;
}

}  // namespace vt::gate
