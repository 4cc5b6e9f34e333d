// Re-running this very binary (/proc/self/exe) as a child with one environment variable set: the
// A/B of `vt bench decode` compares two settings of the same build, each in a fresh process so
// that settings read once at start-up (kernel choices, allocator knobs) take effect.
#pragma once

#include <string>
#include <vector>

#include "engine/bench/ab_compare.h"
#include "base/status.h"

namespace vt::bench {

// Runs /proc/self/exe with `args` (argv after the program name) and this process's environment
// with `setting` applied; the child's stderr passes through, its stdout is returned. A child that
// exits non-zero or dies from a signal is an error.
Result<std::string> RunSelfWithSetting(const std::vector<std::string>& args, const EnvSetting& setting);

}  // namespace vt::bench
