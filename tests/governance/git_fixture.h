// Throwaway git repositories in temp dirs for the vt-gate tests. The git CLI
// builds the repositories and serves as the oracle; the code under test reads
// them through libgit2 only.
#pragma once

#include <string>
#include <vector>

namespace vt::gate::testing {

// Output and exit status of a shell command.
struct CommandOutput {
  std::string out;
  int status = 0;
};

// Runs `command` with /bin/sh; stdout (and stderr when merge_stderr) captured.
CommandOutput Shell(const std::string& command, bool merge_stderr = true);

// The bytes of a file; empty when it cannot be read.
std::string ReadFile(const std::string& path);

// Single-quotes a string for /bin/sh.
std::string Quote(const std::string& s);

// A fresh temp directory, removed with its contents on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string Write(const std::string& name, const std::string& content) const;

 private:
  std::string path_;
};

// A repository under a TempDir with a deterministic identity.
class GitRepo {
 public:
  explicit GitRepo(const std::string& branch = "main");
  const std::string& path() const { return dir_.path(); }

  // Runs `git ARGS` in the repository; fails the test on a non-zero status unless allow_failure.
  std::string Git(const std::string& args, bool allow_failure = false) const;
  // Commits a new file with `message` (verbatim: no cleanup); returns the full id.
  std::string Commit(const std::string& message, const std::string& author = "Ada <ada@example.org>");
  std::string Head() const { return Git("rev-parse HEAD"); }
  void WriteFile(const std::string& name, const std::string& content) const;

 private:
  TempDir dir_;
  int counter_ = 0;
};

// A message with the trailers this repository requires.
std::string GoodMessage(const std::string& subject = "change something");

}  // namespace vt::gate::testing
