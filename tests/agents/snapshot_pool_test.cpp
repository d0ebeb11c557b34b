#include "sim/agents/snapshot_pool.hpp"

#include <doctest/doctest.h>

#include <cmath>

using namespace dlsim;

namespace {

ParamVector pattern(Eigen::Index size, float shift) {
  ParamVector v(size);
  for (Eigen::Index i = 0; i < size; ++i) v[i] = std::sin(0.3f * static_cast<float>(i)) + shift;
  return v;
}

}  // namespace

TEST_CASE("a snapshot pool copies exactly, and reuses a buffer only once nobody else holds it") {
  SnapshotPool pool;
  // Sizes around the 16-float vectors of the streaming copy: empty, a tail alone, whole vectors
  // plus a tail, and a model-sized one.
  for (const Eigen::Index size : {Eigen::Index{0}, Eigen::Index{5}, Eigen::Index{16},
                                  Eigen::Index{37}, Eigen::Index{198760}}) {
    CAPTURE(size);
    const ParamVector x = pattern(size, 1.0f);
    auto held = pool.take_copy(x);  // a neighbour keeps this one
    CHECK(*held == x);
    const ParamVector y = pattern(size, -2.0f);
    auto second = pool.take_copy(y);
    CHECK(second != held);  // held is in use: not handed out again
    CHECK(*second == y);
    CHECK(*held == x);  // and untouched
    const ParamVector* reused = second.get();
    second.reset();  // dropped by every receiver: back to the pool
    auto third = pool.take_copy(x);
    CHECK(third.get() == reused);
    CHECK(*third == x);
  }
}
