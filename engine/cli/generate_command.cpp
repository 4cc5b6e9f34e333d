#include <cstdio>

#include "engine/cli/commands.h"

namespace vt::cli {

Command AddGenerateCommand(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand("generate", "Generate text from a prompt (continuously batched)");
  return {app, [] {
    std::fprintf(stderr, "vt generate: not built yet (tracked in issue #5)\n");
    return 1;
  }};
}

}  // namespace vt::cli
