# Precompiled headers: Eigen, nlohmann/json, fmt and the standard headers most files include are
# parsed once per library instead of once per source file (docs/performance.md, "Build time").
# A source must still include what it uses: tools/check_includes.sh reads the include lines, and
# a build with -DDLSIM_PCH=OFF (the sanitizer build's) compiles every file without them.
# GCC only by default: the clang builds (tools/fuzz.sh) have not been measured with them.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  set(dlsim_pch_default ON)
else()
  set(dlsim_pch_default OFF)
endif()
option(DLSIM_PCH "Precompile the widely included third-party and standard headers"
       ${dlsim_pch_default})

set(DLSIM_PCH_STD <algorithm> <cmath> <cstdint> <functional> <memory> <optional> <span> <string>
                  <string_view> <utility> <variant> <vector> <fmt/format.h>)

# What each optional part adds: its header, and the library that brings its include path.
set(dlsim_pch_header_EIGEN <Eigen/Core>)
set(dlsim_pch_library_EIGEN Eigen3::Eigen)
set(dlsim_pch_header_JSON <nlohmann/json.hpp>)
set(dlsim_pch_library_JSON nlohmann_json::nlohmann_json)
set(dlsim_pch_header_DOCTEST <doctest/doctest.h>)
set(dlsim_pch_library_DOCTEST doctest::doctest)

# dlsim_precompile(<target> [EIGEN] [JSON] [DOCTEST]): the standard set, and the libraries named.
function(dlsim_precompile target)
  if(NOT DLSIM_PCH OR NOT TARGET ${target})
    return()
  endif()
  cmake_parse_arguments(ARG "EIGEN;JSON;DOCTEST" "" "" ${ARGN})
  # One precompiled header per set of headers and kind of target, built by a holder target
  # that links only the libraries whose headers it holds, and reused by every target with that
  # set: a precompiled header costs as much CPU as a large source (6 to 7 s here), and 13
  # libraries (and 13 test suites) share three sets. GCC refuses a header precompiled with a
  # macro its user lacks (-Winvalid-pch), so the holder defines no more than any user: none of
  # the libraries' own (Boost's BOOST_GRAPH_DYN_LINK, say), fmt's as every target links fmt.
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "EXECUTABLE")  # -fPIE, where libraries have -fPIC
    set(kind exe)
  else()
    set(kind lib)
  endif()
  set(holder dlsim_pch_${kind})
  set(headers ${DLSIM_PCH_STD})
  set(holder_links fmt::fmt)
  foreach(part EIGEN JSON DOCTEST)
    if(ARG_${part})
      string(TOLOWER ${part} name)
      string(APPEND holder _${name})
      list(APPEND headers ${dlsim_pch_header_${part}})
      list(APPEND holder_links ${dlsim_pch_library_${part}})
    endif()
  endforeach()
  if(NOT TARGET ${holder})
    set(source ${PROJECT_BINARY_DIR}/pch_holder.cpp)
    if(NOT EXISTS ${source})
      file(WRITE ${source} "// Its target holds a precompiled header (cmake/precompiled_headers.cmake).\n")
    endif()
    if(kind STREQUAL exe)
      # Only the test suites are executables here: doctest's main and runner link it.
      if(NOT ARG_DOCTEST OR NOT TARGET dlsim_doctest_main)
        message(FATAL_ERROR "dlsim_precompile(${target}): executables are the test suites")
      endif()
      add_executable(${holder} EXCLUDE_FROM_ALL ${source} $<TARGET_OBJECTS:dlsim_doctest_main>)
    else()
      add_library(${holder} STATIC EXCLUDE_FROM_ALL ${source})
    endif()
    target_link_libraries(${holder} PRIVATE ${holder_links})
    target_precompile_headers(${holder} PRIVATE ${headers})
    dlsim_pch_warnings(${holder})
  endif()
  target_precompile_headers(${target} REUSE_FROM ${holder})
  dlsim_pch_warnings(${target})
endfunction()

# GCC 12 with precompiled headers inlines std::string differently and reports false
# -Wstringop-overflow and -Warray-bounds positives inside it wherever a string is built with
# operator+ (the family of GCC bug 105651, see -Wno-restrict in CMakeLists.txt). The build
# without precompiled headers (the sanitizer build, -O3 too, in CI) keeps both warnings as errors.
function(dlsim_pch_warnings target)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(${target} PRIVATE -Wno-stringop-overflow -Wno-array-bounds)
  endif()
endfunction()
