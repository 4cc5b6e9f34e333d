# Use ccache for C++ and CUDA when it is installed: CI rebuilds from a fresh clone,
# and the CUDA units dominate a cold build on two cores.
find_program(VT_CCACHE ccache)
if(VT_CCACHE)
  set(CMAKE_C_COMPILER_LAUNCHER "${VT_CCACHE}")
  set(CMAKE_CXX_COMPILER_LAUNCHER "${VT_CCACHE}")
  set(CMAKE_CUDA_COMPILER_LAUNCHER "${VT_CCACHE}")
endif()
