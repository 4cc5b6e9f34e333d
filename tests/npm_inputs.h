// Where ci/fetch-test-inputs.sh leaves the npm-registry inputs the tests read (real tokenizer files,
// the JSON-Schema-Test-Suite), and the reason a test skips when one is missing: the note the fetch
// script left in the cache (registry unreachable, npm missing), so a skip says what happened.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace vt::testing {

// $env_var when set and non-empty, else $HOME/.cache/vt/<leaf> (/tmp when HOME is unset), as the
// fetch scripts compute it.
inline std::filesystem::path NpmCache(const char* env_var, const char* leaf) {
  const char* env = std::getenv(env_var);
  if (env != nullptr && *env != '\0') return env;
  const char* home = std::getenv("HOME");
  return std::filesystem::path(home != nullptr && *home != '\0' ? home : "/tmp") / ".cache/vt" / leaf;
}

// "FILE is missing (NOTE)", NOTE being CACHE/UNAVAILABLE's text or, without one, "run SCRIPT".
inline std::string MissingInput(const std::filesystem::path& file, const std::filesystem::path& cache,
                                const std::string& script) {
  std::ifstream in(cache / "UNAVAILABLE");
  std::stringstream note;
  note << in.rdbuf();
  std::string why = note.str();
  while (!why.empty() && why.back() == '\n') why.pop_back();
  return file.string() + " is missing (" + (why.empty() ? "run " + script : why) + ")";
}

}  // namespace vt::testing
