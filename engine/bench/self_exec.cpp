#include "engine/bench/self_exec.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace vt::bench {

namespace {

constexpr const char* kSelf = "/proc/self/exe";

std::vector<std::string> EnvironmentWith(const EnvSetting& setting) {
  std::vector<std::string> env;
  const std::string prefix = setting.name + "=";
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, prefix.c_str(), prefix.size()) != 0) env.emplace_back(*e);
  }
  env.push_back(setting.text());
  return env;
}

std::vector<char*> NullTerminated(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (std::string& s : strings) pointers.push_back(s.data());
  pointers.push_back(nullptr);
  return pointers;
}

Status Errno(const std::string& what) { return Internal(what + ": " + std::strerror(errno)); }

}  // namespace

Result<std::string> RunSelfWithSetting(const std::vector<std::string>& args, const EnvSetting& setting) {
  std::vector<std::string> argv_strings = {kSelf};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<std::string> env_strings = EnvironmentWith(setting);
  std::vector<char*> argv = NullTerminated(argv_strings), envp = NullTerminated(env_strings);

  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return Errno("pipe");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);  // dup2 clears CLOEXEC on fd 1
  pid_t pid = 0;
  const int spawn_error = ::posix_spawn(&pid, kSelf, &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(out[1]);
  if (spawn_error != 0) {
    ::close(out[0]);
    return Internal(std::string("spawning ") + kSelf + ": " + std::strerror(spawn_error));
  }

  std::string stdout_text;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(out[0], buffer, sizeof buffer);
    if (n > 0) {
      stdout_text.append(buffer, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  ::close(out[0]);
  int wait_status = 0;
  while (::waitpid(pid, &wait_status, 0) < 0) {
    if (errno != EINTR) return Errno("waiting for the " + setting.text() + " run");
  }
  if (WIFSIGNALED(wait_status)) {
    return Internal("the " + setting.text() + " run died from signal " + std::to_string(WTERMSIG(wait_status)));
  }
  if (WEXITSTATUS(wait_status) != 0) {
    return Internal("the " + setting.text() + " run exited with status " + std::to_string(WEXITSTATUS(wait_status)));
  }
  return stdout_text;
}

}  // namespace vt::bench
