# Every dependency is a Debian 12 package (ci/install-deps.sh installs them all).
# A missing one stops configuration with the name of the package to install.
find_package(PkgConfig REQUIRED)

function(vt_missing what debian_package)
  message(FATAL_ERROR
    "vt: ${what} not found. Install the Debian package '${debian_package}' "
    "(or run: bash ci/install-deps.sh)")
endfunction()

macro(vt_find_config name debian_package)
  find_package(${name} CONFIG QUIET)
  if(NOT ${name}_FOUND)
    vt_missing(${name} ${debian_package})
  endif()
endmacro()

macro(vt_find_pkgconfig prefix module debian_package)
  pkg_check_modules(${prefix} QUIET IMPORTED_TARGET ${module})
  if(NOT ${prefix}_FOUND)
    vt_missing(${module} ${debian_package})
  endif()
endmacro()

vt_find_config(CLI11 libcli11-dev)
vt_find_config(nlohmann_json nlohmann-json3-dev)
vt_find_pkgconfig(VT_LIBGIT2 libgit2 libgit2-dev)
vt_find_pkgconfig(VT_CMARK_GFM libcmark-gfm libcmark-gfm-dev)
vt_find_pkgconfig(VT_PCRE2 libpcre2-8 libpcre2-dev)
vt_find_pkgconfig(VT_YAML yaml-0.1 libyaml-dev)
# Boost.Beast and Boost.Asio (header-only) for the server's HTTP front end.
find_package(Boost 1.74 QUIET)
if(NOT Boost_FOUND)
  vt_missing(Boost libboost-dev)
endif()
find_library(VT_CMARK_GFM_EXTENSIONS cmark-gfm-extensions)
if(NOT VT_CMARK_GFM_EXTENSIONS)
  vt_missing(cmark-gfm-extensions libcmark-gfm-extensions-dev)
endif()
find_package(Threads REQUIRED)

if(VT_BUILD_TESTS)
  find_package(GTest CONFIG QUIET)
  if(NOT GTest_FOUND)
    find_package(GTest QUIET)
  endif()
  if(NOT GTest_FOUND)
    vt_missing(GoogleTest libgtest-dev)
  endif()
  include(GoogleTest)
endif()
