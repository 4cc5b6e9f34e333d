#include "kernels/cpu/device_info.h"

#include <fstream>
#include <string>
#include <thread>

namespace vt::kernels::cpu {

CpuInfo QueryCpu() {
  CpuInfo info;
  unsigned n = std::thread::hardware_concurrency();
  info.logical_cores = n == 0 ? 1 : static_cast<int>(n);
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) info.model_name = line.substr(colon + 2);
      break;
    }
  }
  return info;
}

}  // namespace vt::kernels::cpu
