#include <cstdio>

#include "engine/cli/commands.h"

namespace vt::cli {

Command AddBenchCommand(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand("bench", "Benchmark decode, attention kernels and GEMMs");
  return {app, [] {
    std::fprintf(stderr, "vt bench: not built yet (tracked in issue #10)\n");
    return 1;
  }};
}

}  // namespace vt::cli
