#include "governance/external_gate.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <vector>

extern char** environ;

namespace vt::gate {
namespace {

using Clock = std::chrono::steady_clock;
// Only the tail of a command's output is kept for the report.
constexpr size_t kKeepBytes = 4096;

std::string LastLines(const std::string& output, int lines) {
  size_t end = output.find_last_not_of("\n");
  if (end == std::string::npos) return "";
  size_t pos = end + 1;
  for (int i = 0; i < lines && pos > 0; ++i) {
    size_t nl = output.rfind('\n', pos - 1);
    pos = nl == std::string::npos ? 0 : nl;
    if (nl == std::string::npos) break;
  }
  std::string tail = output.substr(pos, end + 1 - pos);
  if (!tail.empty() && tail[0] == '\n') tail.erase(0, 1);
  return tail;
}

}  // namespace

std::string FindExecutable(const std::string& tool, const std::string& search_path) {
  if (tool.empty()) return "";
  if (tool.find('/') != std::string::npos) return access(tool.c_str(), X_OK) == 0 ? tool : "";
  const std::string dirs = search_path.empty() ? std::string(kDefaultSearchPath) : search_path;
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t colon = dirs.find(':', start);
    if (colon == std::string::npos) colon = dirs.size();
    std::string dir = dirs.substr(start, colon - start);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + tool;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    start = colon + 1;
  }
  return "";
}

GateReport RunExternalGate(const GateSpec& spec, const std::string& cwd, const std::string& search_path) {
  Clock::time_point start = Clock::now();
  GateReport report;
  report.gate = spec.name;
  report.checked = 1;
  auto finish = [&](GateStatus status, std::string reason) {
    report.status = status;
    report.reason = std::move(reason);
    report.elapsed_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    return report;
  };
  for (const std::string& tool : spec.requires_tools) {
    if (FindExecutable(tool, search_path).empty())
      return finish(GateStatus::kFail, "required tool '" + tool + "' is not installed");
  }
  std::string program = FindExecutable(spec.command[0], search_path);
  if (program.empty()) return finish(GateStatus::kFail, "command not found: " + spec.command[0]);

  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) return finish(GateStatus::kFail, "cannot create a pipe");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 2);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Its own process group, so a timeout kills the command and its children.
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  std::vector<char*> argv;
  for (const std::string& arg : spec.command) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, program.c_str(), &actions, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  close(pipe_fds[1]);
  if (rc != 0) {
    close(pipe_fds[0]);
    return finish(GateStatus::kFail, "cannot start " + spec.command[0]);
  }

  std::string output;
  bool timed_out = false;
  Clock::time_point deadline = start + std::chrono::seconds(spec.timeout_s);
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      timed_out = true;
      kill(-pid, SIGKILL);
      break;
    }
    pollfd fd{pipe_fds[0], POLLIN, 0};
    int ready = poll(&fd, 1, static_cast<int>(left));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    char buf[4096];
    ssize_t n = read(pipe_fds[0], buf, sizeof(buf));
    if (n <= 0) break;
    output.append(buf, static_cast<size_t>(n));
    if (output.size() > 2 * kKeepBytes) output.erase(0, output.size() - kKeepBytes);
  }
  close(pipe_fds[0]);
  // The command may close its output and keep running: the deadline still holds.
  int wstatus = 0;
  for (;;) {
    pid_t done = waitpid(pid, &wstatus, timed_out ? 0 : WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR)) break;
    if (done == 0 && Clock::now() >= deadline) {
      timed_out = true;
      kill(-pid, SIGKILL);
    } else if (done == 0) {
      usleep(2000);
    }
  }
  if (timed_out) return finish(GateStatus::kFail, "timed out after " + std::to_string(spec.timeout_s) + " s");
  std::string tail = LastLines(output, 5);
  if (WIFSIGNALED(wstatus))
    return finish(GateStatus::kFail, "killed by signal " + std::to_string(WTERMSIG(wstatus)));
  int code = WEXITSTATUS(wstatus);
  if (code == 0) return finish(GateStatus::kOk, LastLines(output, 1));
  if (code == kExitUnverified) {
    return finish(GateStatus::kSkip, tail.empty() ? "the command could not verify (exit 3)" : tail);
  }
  if (!tail.empty()) report.findings.push_back({"exit", "", "", 0, tail});
  return finish(GateStatus::kFail, "exit status " + std::to_string(code));
}

}  // namespace vt::gate
