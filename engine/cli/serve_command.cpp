#include <cstdio>

#include "engine/cli/commands.h"

namespace vt::cli {

Command AddServeCommand(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand("serve", "Serve the OpenAI-compatible HTTP API");
  return {app, [] {
    std::fprintf(stderr, "vt serve: not built yet (tracked in issue #6)\n");
    return 1;
  }};
}

}  // namespace vt::cli
