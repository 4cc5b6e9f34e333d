// What the CPU backend runs on: used by `vt` to report the machine and by the
// benchmarks to size thread pools.
#pragma once

#include <string>

namespace vt::kernels::cpu {

struct CpuInfo {
  int logical_cores = 1;
  std::string model_name;
};

CpuInfo QueryCpu();

}  // namespace vt::kernels::cpu
