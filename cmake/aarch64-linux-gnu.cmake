# Cross-compiling for 64-bit ARM Linux on a Debian x86-64 machine (tools/arm_check.sh): Debian's
# cross compiler (g++-aarch64-linux-gnu) with its target C library in /usr/aarch64-linux-gnu, and
# the binaries run under user-mode QEMU (qemu-user), so ctest and doctest's test discovery run
# them too. armv8-a is the baseline every AArch64 core has, NEON (Advanced SIMD) included.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_CXX_FLAGS_INIT "-march=armv8-a")
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L /usr/aarch64-linux-gnu)

# Libraries and headers of the target only; programs (the build's own tools) of this machine.
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
