#include <doctest/doctest.h>

#include <cmath>

#include "sim/metrics/learning_watch.hpp"

using namespace dlsim;

namespace {

// An evaluation point at `iteration` whose agents score `accuracies`.
EvalPoint point(int64_t iteration, std::initializer_list<double> accuracies) {
  EvalPoint p;
  p.iteration = iteration;
  for (double a : accuracies) {
    AgentPoint ap;
    ap.score.accuracy = a;
    p.agents.push_back(ap);
  }
  return p;
}

}  // namespace

TEST_CASE("learning watch: agents that fell back to chance are reported once, with where they "
          "had been") {
  LearningWatch watch(10, "check /algorithm/b");
  CHECK_FALSE(watch.observe(point(0, {0.10, 0.09})));    // iteration 0 is not judged
  CHECK_FALSE(watch.observe(point(100, {0.35, 0.12})));  // 0.35 > 2 x chance: learning
  CHECK_FALSE(watch.observe(point(200, {0.16, 0.11})));  // 0.16 is not at chance (<= 0.15)
  CHECK_FALSE(watch.warning());
  CHECK(watch.observe(point(300, {0.15, 0.10})));
  CHECK(*watch.warning() ==
        "every agent is at chance accuracy at iteration 300 (best 0.150; chance 0.100) after "
        "reaching 0.350 at iteration 100: the run stopped learning; check /algorithm/b");
  CHECK_FALSE(watch.observe(point(400, {0.10, 0.10})));  // once
  CHECK(watch.warning()->find("iteration 300") != std::string::npos);
}

TEST_CASE("learning watch: no agent above chance after 1,000 iterations is reported, a slow start "
          "before that is not") {
  LearningWatch watch(10, "check /optimizer/lr");
  CHECK_FALSE(watch.observe(point(500, {0.12, 0.18})));
  CHECK_FALSE(watch.observe(point(999, {0.19, 0.20})));  // 0.20 is not above 2 x chance
  CHECK(watch.observe(point(1000, {0.11, 0.13})));
  CHECK(*watch.warning() == "no agent rose above chance accuracy in 1000 iterations (best 0.200; "
                            "chance 0.100): the run learns nothing; check /optimizer/lr");
  LearningWatch learns(10, "");
  CHECK_FALSE(learns.observe(point(500, {0.11, 0.25})));
  CHECK_FALSE(learns.observe(point(1000, {0.30, 0.40})));
  CHECK_FALSE(learns.warning());
}

TEST_CASE("learning watch: offline agents and quadratic models are not judged, and a resumed watch "
          "gives the same text") {
  LearningWatch watch(10, "x");
  EvalPoint p = point(100, {0.9, 0.1});
  p.agents[0].online = false;  // the only agent above chance is offline
  watch.observe(p);
  CHECK(watch.progress().best_accuracy == doctest::Approx(0.1));
  CHECK(watch.observe(point(1000, {0.1, 0.1})));
  const LearningWatch resumed(10, "x", watch.progress());
  CHECK(resumed.warning() == watch.warning());
  LearningWatch quadratic(0, "x");
  CHECK_FALSE(quadratic.observe(point(2000, {NAN, NAN})));
  LearningWatch unscored(10, "x");
  CHECK_FALSE(unscored.observe(point(2000, {NAN})));
}
