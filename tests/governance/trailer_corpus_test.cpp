// The trailer corpus (tests/fixtures/trailers/*.msg) against two oracles:
// `git interpret-trailers --parse`, which vt-gate must always agree with, and
// libgit2's git_message_trailers, which it must agree with except on the
// cases listed in libgit2-differs.txt (each must really differ, so the list
// and its README stay true).
#include <git2.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "governance/trailer_parser.h"
#include "tests/governance/git_fixture.h"

namespace vt::gate {
namespace {

namespace fs = std::filesystem;
using testing::Quote;
using testing::ReadFile;
using testing::Shell;

const fs::path kCorpus = fs::path(VT_SOURCE_DIR) / "tests/fixtures/trailers";

std::vector<fs::path> CorpusFiles() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(kCorpus)) {
    if (entry.path().extension() == ".msg") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

using Pairs = std::vector<std::string>;  // "key: value"

Pairs Ours(const std::string& message) {
  Pairs out;
  for (const Trailer& t : ParseTrailers(message).trailers) out.push_back(t.key + ": " + t.value);
  return out;
}

Pairs GitOracle(const fs::path& file) {
  testing::CommandOutput r = Shell("git interpret-trailers --parse < " + Quote(file.string()), false);
  EXPECT_EQ(r.status, 0) << file;
  Pairs out;
  std::istringstream lines(r.out);
  std::string line;
  while (std::getline(lines, line)) {
    size_t colon = line.find(':');
    std::string value = colon + 1 < line.size() ? line.substr(colon + 1) : "";
    if (!value.empty() && value[0] == ' ') value.erase(0, 1);
    out.push_back(line.substr(0, colon) + ": " + value);
  }
  return out;
}

// libgit2 keeps a continuation's newline and indentation; unfold it the way
// git does so that only block detection is compared.
Pairs Libgit2Oracle(const std::string& message) {
  git_libgit2_init();
  git_message_trailer_array array{};
  Pairs out;
  if (git_message_trailers(&array, message.c_str()) != 0) return {"<libgit2 error>"};
  for (size_t i = 0; i < array.count; ++i) {
    std::string value = array.trailers[i].value;
    std::string unfolded;
    for (size_t k = 0; k < value.size(); ++k) {
      if (value[k] == '\n') {
        while (k + 1 < value.size() && (value[k + 1] == ' ' || value[k + 1] == '\t')) ++k;
        unfolded += ' ';
      } else {
        unfolded += value[k];
      }
    }
    out.push_back(std::string(array.trailers[i].key) + ": " + unfolded);
  }
  git_message_trailer_array_free(&array);
  git_libgit2_shutdown();
  return out;
}

std::set<std::string> Libgit2Differs() {
  std::set<std::string> names;
  std::istringstream lines(ReadFile(kCorpus / "libgit2-differs.txt"));
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#') continue;
    names.insert(line.substr(0, line.find(' ')));
  }
  return names;
}

std::string Show(const Pairs& pairs) {
  std::string out;
  for (const std::string& p : pairs) out += "[" + p + "] ";
  return out;
}

TEST(TrailerCorpus, HasAtLeastFortyMessages) { EXPECT_GE(CorpusFiles().size(), 40u); }

TEST(TrailerCorpus, AgreesWithGitInterpretTrailers) {
  for (const fs::path& file : CorpusFiles()) {
    Pairs git = GitOracle(file);
    Pairs ours = Ours(ReadFile(file));
    EXPECT_EQ(ours, git) << file.filename() << "\n ours: " << Show(ours) << "\n git:  " << Show(git);
  }
}

TEST(TrailerCorpus, AgreesWithLibgit2ExceptDocumentedCases) {
  std::set<std::string> differs = Libgit2Differs();
  EXPECT_FALSE(differs.empty());
  for (const fs::path& file : CorpusFiles()) {
    std::string message = ReadFile(file);
    Pairs lib = Libgit2Oracle(message);
    Pairs ours = Ours(message);
    std::string name = file.stem().string();
    if (differs.count(name)) {
      EXPECT_NE(ours, lib) << name << " is listed in libgit2-differs.txt but libgit2 agrees: " << Show(lib);
    } else {
      EXPECT_EQ(ours, lib) << name << "\n ours:    " << Show(ours) << "\n libgit2: " << Show(lib);
    }
  }
  for (const std::string& name : differs) EXPECT_TRUE(fs::exists(kCorpus / (name + ".msg"))) << name;
}

}  // namespace
}  // namespace vt::gate
