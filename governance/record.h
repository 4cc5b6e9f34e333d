// The roadmap record: the Markdown files the config names, read once and
// split into its tables by their columns. A table with an id and a state
// column holds rows; an issue and an id column (no state) is the intake; a
// state and a count column (no id) is a summary; an owner column alone lists
// the claims. Other tables are prose and are ignored. The record, intake,
// rows and trailers gates all read the record through this one loader.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "governance/config.h"
#include "governance/file_source.h"
#include "governance/markdown.h"
#include "governance/report.h"

namespace vt::gate {

struct RecordRow {
  std::string id;
  std::string file;  // relative to the repository root
  int line = 0;
  std::map<Column, MdCell> cells;  // only the columns the table has
  const MdCell* Cell(Column column) const;
};

struct IntakeEntry {
  std::string file;
  int line = 0;
  MdCell issue;
  MdCell rows;  // one or more row ids
};

struct SummaryEntry {
  std::string file;
  int line = 0;
  std::string state;
  std::string count;
};

struct ClaimEntry {
  std::string owner;
  std::string file;
  int line = 0;
};

struct RecordFile {
  std::string path;  // relative to the repository root
  MdDocument doc;
};

struct Record {
  std::vector<RecordFile> files;
  std::vector<RecordRow> rows;
  std::vector<IntakeEntry> intake;
  std::vector<SummaryEntry> summaries;
  std::vector<ClaimEntry> claims;
  std::vector<Finding> malformed;  // rows whose cell count differs from the header

  std::vector<std::string> SortedIds() const;
  const RecordRow* Find(const std::string& id) const;  // the first row with that id
};

// Reads every file matched by config.files from `source` (the work tree or
// the index). A glob that matches nothing is an error: a record that silently
// vanished must not pass. With `only_ids`, the caller needs only the rows with
// those ids (the commit-msg hook, the rows its message names): files are read in
// glob order until the record holds them all, and a file whose text does not
// mention any of them is not parsed. When one of them is not found so, the whole
// record is read, so an id spelled with an escape is still found and what the
// caller reports about a missing one is the whole record's.
Result<Record> LoadRecord(const FileSource& source, const RecordConfig& config,
                          const std::vector<std::string>* only_ids = nullptr);

// The whole record as commit `commit` has it.
Result<Record> LoadRecordAt(const Repository& repo, const git_oid& commit, const RecordConfig& config);

// The text of a cell with backticks and surrounding punctuation removed, split
// into words: "`ACTIVE`" -> {"ACTIVE"}, "A-1, B-2" -> {"A-1", "B-2"}.
std::vector<std::string> CellWords(const MdCell& cell);

// ASCII lower case: header aliases, section titles and placeholders compare case-insensitively.
std::string AsciiLower(std::string s);

// Characters an id token is made of: letters, digits, '-' and '_'.
bool IsIdChar(char c);

// True when `token` occurs in `text` delimited by characters that cannot be
// part of an id (letters, digits, '-' and '_'): "GATE-CORE" is not in "GATE-CORE-2".
bool ContainsToken(const std::string& text, const std::string& token);

}  // namespace vt::gate
