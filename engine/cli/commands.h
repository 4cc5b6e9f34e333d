// Subcommands of `vt`. Each Add*Command registers its options on the parent
// app and returns the subcommand with the function that runs it once parsing
// has succeeded.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <vector>

namespace vt::cli {

struct Command {
  CLI::App* app;
  std::function<int()> run;  // returns the process exit code
};

Command AddGenerateCommand(CLI::App& parent);
Command AddServeCommand(CLI::App& parent);
Command AddBenchCommand(CLI::App& parent);

// Registers every subcommand on `app`.
std::vector<Command> RegisterCommands(CLI::App& app);

// Runs the subcommand that was parsed; returns the process exit code.
int RunSelected(const std::vector<Command>& commands);

}  // namespace vt::cli
