// The `vt-gate` command line: parses arguments with CLI11 and calls the
// governance library. No gate logic lives here.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>

#include "governance/report.h"

namespace {

constexpr const char* kExitCodes =
    "Exit codes:\n"
    "  0  every gate ran and passed\n"
    "  1  a gate failed\n"
    "  2  usage or config error\n"
    "  3  could not verify (a gate was skipped: missing base, shallow clone, ...)\n";

int NotBuiltYet(const char* name) {
  std::fprintf(stderr, "vt-gate %s: not built yet (tracked in issue #3)\n", name);
  return vt::gate::kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"vt-gate: governance gates for repositories changed by people and agents", "vt-gate"};
  app.footer(kExitCodes);
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("vt-gate ") + VT_VERSION);

  CLI::App* trailers = app.add_subcommand("trailers", "Check commit trailers over a range or a message");
  CLI::App* preflight = app.add_subcommand("preflight", "Run every configured gate once");
  CLI::App* hooks = app.add_subcommand("hooks", "Install or uninstall the git hooks");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? vt::gate::kExitOk : vt::gate::kExitUsage;
  }
  if (trailers->parsed()) return NotBuiltYet("trailers");
  if (preflight->parsed()) return NotBuiltYet("preflight");
  if (hooks->parsed()) return NotBuiltYet("hooks");
  return vt::gate::kExitUsage;
}
