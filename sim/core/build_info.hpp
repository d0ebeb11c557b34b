// What results depend on besides the code and the scenario: the compiler and the instruction set
// (-march=native may use FMA, which rounds differently). Golden fingerprints are recorded under
// this key; `dlsim version` prints it.
#pragma once

#include <string>

namespace dlsim {

inline std::string build_key() {
  std::string key = "gcc " __VERSION__;
#if defined(__AVX512F__)
  key += " avx512f";
#endif
#if defined(__FMA__)
  key += " fma";
#endif
#if defined(__AVX2__)
  key += " avx2";
#endif
#if defined(__SANITIZE_ADDRESS__)
  key += " asan";
#endif
  return key;
}

}  // namespace dlsim
