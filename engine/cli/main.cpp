// The `vt` command line: parses arguments with CLI11 and hands off to one
// function per subcommand. No engine logic lives here.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include "base/build_source.h"
#include "engine/cli/commands.h"

namespace {

constexpr const char* kExitCodes =
    "Exit codes:\n"
    "  0  success\n"
    "  1  the run failed (bad model files, out of memory, ...)\n"
    "  2  usage error\n";

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"vt: an LLM inference engine and OpenAI-compatible server", "vt"};
  app.footer(kExitCodes);
  app.require_subcommand(1);
  app.set_version_flag("--version",
                       std::string("vt ") + VT_VERSION + " (source " + vt::BuildSource() + ")");

  const std::vector<vt::cli::Command> commands = vt::cli::RegisterCommands(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  return vt::cli::RunSelected(commands);
}
