// The source tree this binary was built from, as benchmark output and `vt --version` name it: the
// git commit, with "+diff.<hash>" where tracked files differed from it (cmake/VtBuildSource.cmake).
// Evidence then says which build produced each number, and an A/B whose two sides were the same
// build shows it.
#pragma once

namespace vt {

const char* BuildSource();

}  // namespace vt
