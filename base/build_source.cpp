#include "base/build_source.h"

namespace vt {

const char* BuildSource() {
  return
#include "base/build_source.inc"
      ;
}

}  // namespace vt
