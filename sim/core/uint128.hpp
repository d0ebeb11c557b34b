// The compiler's 128-bit unsigned integer, for exact products of 64-bit values (GCC and Clang).
#pragma once

namespace dlsim {
__extension__ typedef unsigned __int128 uint128;
}  // namespace dlsim
