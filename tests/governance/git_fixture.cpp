#include "tests/governance/git_fixture.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace vt::gate::testing {
namespace {

// Tests must not see the developer's git config (commentChar, hooksPath,
// templates). Set before libgit2 initialises, which reads HOME once.
const bool kIsolatedEnvironment = [] {
  static std::string home = std::filesystem::temp_directory_path() / "vt-gate-test-home";
  std::filesystem::create_directories(home);
  setenv("HOME", home.c_str(), 1);
  setenv("XDG_CONFIG_HOME", home.c_str(), 1);
  setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
  setenv("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z", 1);
  setenv("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z", 1);
  setenv("GIT_COMMITTER_NAME", "Ada", 1);
  setenv("GIT_COMMITTER_EMAIL", "ada@example.org", 1);
  setenv("GIT_TEMPLATE_DIR", "", 1);
  unsetenv("VT_GATE");
  return true;
}();

}  // namespace

CommandOutput Shell(const std::string& command, bool merge_stderr) {
  (void)kIsolatedEnvironment;
  std::string full = command + (merge_stderr ? " 2>&1" : "");
  CommandOutput result;
  FILE* pipe = popen(full.c_str(), "r");
  if (!pipe) {
    result.status = -1;
    return result;
  }
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), pipe)) > 0) result.out.append(buf, n);
  int status = pclose(pipe);
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

TempDir::TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "vt-gate-XXXXXX").string();
  char* made = mkdtemp(tmpl.data());
  path_ = made ? std::filesystem::canonical(made).string() : tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string TempDir::Write(const std::string& name, const std::string& content) const {
  std::string file = path_ + "/" + name;
  std::filesystem::create_directories(std::filesystem::path(file).parent_path());
  std::ofstream(file, std::ios::binary) << content;
  return file;
}

GitRepo::GitRepo(const std::string& branch) {
  Git("init -q -b " + branch);
  Git("config user.name Ada");
  Git("config user.email ada@example.org");
  Git("config commit.gpgsign false");
}

std::string GitRepo::Git(const std::string& args, bool allow_failure) const {
  CommandOutput r = Shell("git -C " + Quote(path()) + " " + args);
  if (!allow_failure) {
    EXPECT_EQ(r.status, 0) << "git " << args << "\n" << r.out;
  }
  while (!r.out.empty() && r.out.back() == '\n') r.out.pop_back();
  return r.out;
}

void GitRepo::WriteFile(const std::string& name, const std::string& content) const {
  dir_.Write(name, content);
}

std::string GitRepo::Commit(const std::string& message, const std::string& author) {
  std::string name = "file" + std::to_string(++counter_) + ".txt";
  WriteFile(name, std::to_string(counter_) + "\n");
  Git("add " + name);
  std::string msg_file = dir_.Write(".git/vt-test-msg", message);
  Git("commit -q --cleanup=verbatim --allow-empty-message --no-verify --author=" + Quote(author) + " -F " +
      Quote(msg_file));
  return Head();
}

std::string GoodMessage(const std::string& subject) {
  return subject +
         "\n\nWhy it changes.\n\nRow: ENG-CORE\nAI-Assisted: true\nAssisted-by: Claude:claude-opus "
         "[vt-helper]\n";
}

}  // namespace vt::gate::testing
