#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/core/thread_pool.hpp"

using namespace dlsim;

TEST_CASE("parallel_for visits every index exactly once, for any thread count") {
  for (unsigned threads : {1u, 2u, 3u, 8u}) {
    ThreadPool pool(threads);
    for (size_t n : {0u, 1u, 7u, 1000u}) {
      std::vector<int> hits(n, 0);
      pool.parallel_for(n, [&](size_t i) { hits[i] += 1; });
      for (int h : hits) CHECK(h == 1);
    }
  }
}

TEST_CASE("parallel_for rethrows an exception from a worker") {
  ThreadPool pool(2);
  CHECK_THROWS_AS(pool.parallel_for(10,
                                    [](size_t i) {
                                      if (i == 9) throw InputError("bad");
                                    }),
                  InputError);
  std::vector<int> hits(10, 0);  // and stays usable
  pool.parallel_for(10, [&](size_t i) { hits[i] = 1; });
  CHECK(hits == std::vector<int>(10, 1));
}

TEST_CASE("parallel_for rethrows the exception of the lowest failing index, for any thread count") {
  for (unsigned threads : {1u, 2u, 3u, 8u}) {
    ThreadPool pool(threads);
    for (int repeat = 0; repeat < 20; ++repeat) {
      std::string message;
      try {
        pool.parallel_for(40, [](size_t i) {
          if (i % 7 == 3) throw InputError(fmt::format("bad {}", i));
        });
      } catch (const InputError& e) {
        message = e.what();
      }
      CHECK(message == "bad 3");
    }
  }
}
