// dlsim: the command-line entry point. Everything happens in run_cli (app.hpp), which maps
// errors to exit codes: 0 success, 1 internal error, 2 bad input or command line.
#include <iostream>
#include <string_view>

#include "sim/cli/app.hpp"
#include "sim/core/huge_pages.hpp"

int main(int argc, char** argv) {
  // Only the commands that simulate gain from huge pages; the restart costs the others ~20 ms.
  const std::string_view command = argc > 1 ? argv[1] : "";
  if (command == "run" || command == "sweep") dlsim::restart_with_huge_pages(argv);
  try {
    return dlsim::cli::run_cli(argc, argv, std::cout, std::cerr);
  } catch (...) {  // run_cli catches everything; this is the last line of defence
    std::cerr << "dlsim: internal error: unexpected exception\n";
    return 1;
  }
}
