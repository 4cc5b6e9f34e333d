# Resolves VT_CUDA (AUTO|ON|OFF) into VT_HAVE_CUDA and enables the CUDA language.
# The toolkit is looked for at /usr/local/cuda unless CMAKE_CUDA_COMPILER says otherwise.
set(VT_HAVE_CUDA OFF)
if(NOT VT_CUDA STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    enable_language(CUDA)
    set(VT_HAVE_CUDA ON)
  elseif(VT_CUDA STREQUAL "ON")
    message(FATAL_ERROR "vt: VT_CUDA=ON but no CUDA compiler (nvcc) was found; "
                        "install the CUDA toolkit at /usr/local/cuda or pass -DVT_CUDA=OFF")
  endif()
endif()

if(VT_HAVE_CUDA)
  set(CMAKE_CUDA_STANDARD 17)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  # Architectures are set per source from kernels/cuda/features.yaml, never by CMake's default.
  set(CMAKE_CUDA_ARCHITECTURES OFF)
  set(CMAKE_CUDA_RUNTIME_LIBRARY Static)
  find_package(CUDAToolkit REQUIRED)
  message(STATUS "vt: CUDA backend ON (nvcc ${CMAKE_CUDA_COMPILER_VERSION})")
else()
  message(STATUS "vt: CUDA backend OFF (VT_CUDA=${VT_CUDA})")
endif()
