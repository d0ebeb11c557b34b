#!/usr/bin/env bash
# ctest's doctest discovery splits a test name at ';' into names that match no test case, and a
# filter that matches nothing passes: such a test would never run. Fails naming any TEST_CASE
# whose name, over all its string literals (names wrap over lines), holds a ';'.
set -euo pipefail
cd "$(dirname "$0")/.."
! find tests -name '*.cpp' -print0 | xargs -0 perl -0777 -ne \
  'while (/TEST_CASE\(((?:\s*"[^"]*")+)/g) { my $n = $1; print "$ARGV: $n\n" if $n =~ /;/ }' |
  grep .
