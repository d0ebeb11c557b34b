# The dependencies of the models library and its tests for a build with DLSIM_MODELS_ONLY, such
# as tools/arm_check.sh's cross build, which has none of the target's libraries: Eigen, doctest
# and fmt (as FMT_HEADER_ONLY) are header-only, the same for every architecture, so this
# machine's Debian headers serve. They are reached through a folder that holds only them:
# /usr/include itself would put this machine's C library headers ahead of the target's.
set(dlsim_header_only_dir ${PROJECT_BINARY_DIR}/header_only)
file(MAKE_DIRECTORY ${dlsim_header_only_dir})
foreach(path /usr/include/eigen3/Eigen /usr/include/doctest /usr/include/fmt)
  if(NOT EXISTS ${path})
    message(FATAL_ERROR "${path} is missing (bash tools/setup.sh --tests installs it)")
  endif()
  get_filename_component(name ${path} NAME)
  file(CREATE_LINK ${path} ${dlsim_header_only_dir}/${name} SYMBOLIC)
endforeach()

foreach(target Eigen3::Eigen doctest::doctest fmt::fmt)
  add_library(${target} INTERFACE IMPORTED)
  target_include_directories(${target} SYSTEM INTERFACE ${dlsim_header_only_dir})
endforeach()
target_compile_definitions(fmt::fmt INTERFACE FMT_HEADER_ONLY)

# tests/CMakeLists.txt includes doctest's CMake module from here.
set(doctest_FOUND TRUE)
set(doctest_DIR /usr/lib/cmake/doctest)
if(NOT EXISTS ${doctest_DIR}/doctest.cmake)
  message(FATAL_ERROR "${doctest_DIR}/doctest.cmake is missing (doctest-dev)")
endif()
