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

# dlsim_precompile(<target> [EIGEN] [JSON] [DOCTEST]): the standard set, and the libraries named.
function(dlsim_precompile target)
  if(NOT DLSIM_PCH OR NOT TARGET ${target})
    return()
  endif()
  cmake_parse_arguments(ARG "EIGEN;JSON;DOCTEST" "" "" ${ARGN})
  set(headers ${DLSIM_PCH_STD})
  if(ARG_EIGEN)
    list(APPEND headers <Eigen/Core>)
  endif()
  if(ARG_JSON)
    list(APPEND headers <nlohmann/json.hpp>)
  endif()
  if(ARG_DOCTEST)
    list(APPEND headers <doctest/doctest.h>)
  endif()
  target_precompile_headers(${target} PRIVATE ${headers})
  # GCC 12 then inlines std::string differently and reports false -Wstringop-overflow and
  # -Warray-bounds positives inside it wherever a string is built with operator+ (the family of
  # GCC bug 105651, see -Wno-restrict in CMakeLists.txt). The build without precompiled headers
  # (the sanitizer build, -O3 too, in CI) keeps both warnings as errors.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(${target} PRIVATE -Wno-stringop-overflow -Wno-array-bounds)
  endif()
endfunction()
