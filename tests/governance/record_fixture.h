// A throwaway repository with a small, clean roadmap record that the record,
// intake, rows and trailers gates all pass. Each test plants one violation
// in the work tree (or the history) and expects the finding at file:line.
#pragma once

#include <string>

#include "governance/config.h"
#include "governance/report.h"
#include "tests/governance/git_fixture.h"

namespace vt::gate::testing {

class RecordRepo {
 public:
  RecordRepo();

  GitRepo& git() { return repo_; }
  const std::string& path() const { return repo_.path(); }
  // The commit the DONE row names as its closing commit.
  const std::string& closing() const { return closing_; }

  // The fixture's config with `extra` YAML appended.
  Config LoadConfig(const std::string& extra = "") const;
  static const char* ConfigText();

  void Write(const std::string& file, const std::string& content) const { repo_.WriteFile(file, content); }
  std::string Read(const std::string& file) const;
  // Replaces the first occurrence of `from` in `file`; fails the test when absent.
  void Replace(const std::string& file, const std::string& from, const std::string& to) const;
  // The 1-based line of `file` holding `needle`; 0 when absent.
  int LineOf(const std::string& file, const std::string& needle) const;

  GateReport RunGate(const std::string& name, const std::string& extra_config = "");

 private:
  GitRepo repo_;
  std::string closing_;
};

// The findings of `report` with rule `rule`, as "file:line" strings.
std::vector<std::string> Where(const GateReport& report, const std::string& rule);

}  // namespace vt::gate::testing
