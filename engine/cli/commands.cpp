#include "engine/cli/commands.h"

namespace vt::cli {

std::vector<Command> RegisterCommands(CLI::App& app) {
  return {AddGenerateCommand(app), AddServeCommand(app), AddBenchCommand(app)};
}

int RunSelected(const std::vector<Command>& commands) {
  for (const Command& c : commands) {
    if (c.app->parsed()) return c.run();
  }
  return 2;
}

}  // namespace vt::cli
