// Transparent huge pages for the whole process, through glibc's malloc tunable.
#pragma once

namespace dlsim {

/// A run streams every agent's parameter vectors and broadcast copies each iteration, and with
/// 4 KB pages the TLB misses cost a good part of it (docs/performance.md, "Huge pages", has
/// the measurement). glibc backs its heaps with transparent huge pages
/// only when GLIBC_TUNABLES asks for it at start-up (glibc.malloc.hugetlb=1, glibc 2.35 and
/// later), so this adds that to the variable and executes the same program again with the same
/// arguments; the process keeps its id. It returns, doing nothing, when GLIBC_TUNABLES already
/// names the tunable (glibc.malloc.hugetlb=0 turns huge pages off), after a restart already
/// (DLSIM_RESTARTED_FOR_HUGE_PAGES is set), in a setuid or file-capability program (whose loader
/// drops GLIBC_TUNABLES), under valgrind (which would not follow the restart), when the program
/// was started through the dynamic loader by hand, and when the exec fails (the environment is
/// then put back as it was).
void restart_with_huge_pages(char** argv);

/// Whether this process's malloc was asked for huge pages (what summary.json reports): glibc
/// older than 2.35, or THP set to "never", may still have given none.
bool malloc_huge_pages();

}  // namespace dlsim
