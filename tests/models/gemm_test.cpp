#include "models/layers/gemm.hpp"

#include <doctest/doctest.h>

#include <Eigen/Core>
#include <vector>

#include "sim/core/random.hpp"

using namespace dlsim;
using namespace dlsim::models::layers;

namespace {

Eigen::MatrixXf random_matrix(Index rows, Index cols, RandomStream& rng) {
  Eigen::MatrixXf m(rows, cols);
  for (Index i = 0; i < m.size(); ++i) m.data()[i] = static_cast<float>(rng.uniform(-1.0, 1.0));
  return m;
}

// Largest |C - reference| over shapes that hit every tile edge case: rows below, at and above one
// and two 16-lane vectors, columns below and above the 12-column tile, depths across the 256 block.
double max_error(Layout layout, Accumulate acc, float alpha) {
  RandomStream rng(7, "gemm", 0);
  double worst = 0.0;
  for (Index m : {1, 5, 16, 17, 32, 45, 70}) {
    for (Index n : {1, 7, 12, 13, 30}) {
      for (Index k : {1, 3, 256, 300}) {
        const Eigen::MatrixXf a = random_matrix(m + 3, k, rng);  // lda = m + 3
        const Eigen::MatrixXf b = random_matrix(k, n, rng);
        const Eigen::MatrixXf bt = b.transpose();
        Eigen::MatrixXf c = random_matrix(m + 2, n, rng);  // ldc = m + 2
        Eigen::MatrixXf expected = c;
        expected.topRows(m) = alpha * (a.topRows(m) * b);
        if (acc == Accumulate::kYes) expected.topRows(m) += c.topRows(m);
        const Operand op = layout == Layout::kColMajor ? Operand{b.data(), k, layout}
                                                       : Operand{bt.data(), n, layout};
        gemm(m, n, k, alpha, a.data(), m + 3, op, c.data(), m + 2, acc);
        worst = std::max(worst, static_cast<double>((c - expected).cwiseAbs().maxCoeff()));
      }
    }
  }
  return worst;
}

}  // namespace

TEST_CASE("gemm matches Eigen for column-major B, overwriting C") {
  CHECK(max_error(Layout::kColMajor, Accumulate::kNo, 1.0f) < 1e-4);
}

TEST_CASE("gemm matches Eigen for row-major B, accumulating alpha * A * B into C") {
  // The rows of C past m (ldc > m) must be left alone: they are part of `expected` unchanged.
  CHECK(max_error(Layout::kRowMajor, Accumulate::kYes, -0.5f) < 1e-4);
}

TEST_CASE("gemm with an empty depth zeroes or keeps C") {
  Eigen::MatrixXf c = Eigen::MatrixXf::Constant(3, 2, 5.0f);
  const float dummy = 0.0f;
  gemm(3, 2, 0, 1.0f, &dummy, 3, Operand{&dummy, 0}, c.data(), 3, Accumulate::kYes);
  CHECK(c(2, 1) == 5.0f);
  gemm(3, 2, 0, 1.0f, &dummy, 3, Operand{&dummy, 0}, c.data(), 3, Accumulate::kNo);
  CHECK(c.cwiseAbs().maxCoeff() == 0.0f);
}

TEST_CASE("transpose of a 3x2 matrix") {
  const float src[6] = {1, 2, 3, 4, 5, 6};  // column-major 3x2: rows (1 4) (2 5) (3 6)
  float dst[6] = {};
  transpose(src, 3, 2, dst);  // 2x3 column-major: columns (1 4) (2 5) (3 6)
  const float expected[6] = {1, 4, 2, 5, 3, 6};
  for (int i = 0; i < 6; ++i) CHECK(dst[i] == expected[i]);
}

TEST_CASE("transpose of a 19x21 matrix, across the 8x8 blocks and their edges") {
  Eigen::MatrixXf src(19, 21);
  for (Index i = 0; i < src.size(); ++i) src.data()[i] = static_cast<float>(i);
  Eigen::MatrixXf dst(21, 19);
  transpose(src.data(), 19, 21, dst.data());
  CHECK(dst == src.transpose());
}

TEST_CASE("gemm reads B rows at arbitrary offsets, up to 14 columns in one tile") {
  RandomStream rng(8, "gemm", 0);
  for (Index n : {3, 13, 14, 26}) {
    const Index m = 40, k = 300;
    const Eigen::MatrixXf a = random_matrix(m, k, rng);
    const Eigen::VectorXf pool = random_matrix(k * 3 + 40, 1, rng);
    std::vector<Index> offsets(static_cast<size_t>(k));
    Eigen::MatrixXf b(k, n);
    for (Index p = 0; p < k; ++p) {
      offsets[static_cast<size_t>(p)] = (p * 7) % (k * 3);  // rows overlap and come in any order
      b.row(p) = pool.segment(offsets[static_cast<size_t>(p)], n).transpose();
    }
    Eigen::MatrixXf c(m, n);
    gemm(m, n, k, 2.0f, a.data(), m, Operand{pool.data(), 0, Layout::kRowOffsets, offsets.data()},
         c.data(), m, Accumulate::kNo);
    CHECK((c - 2.0f * a * b).cwiseAbs().maxCoeff() < 1e-4);
  }
}

// A column stride of 512 floats or more, several column tiles and an A that is not small: the
// backends below 16 lanes copy each A block into a contiguous buffer first (gemm.cpp, kPackA).
TEST_CASE("gemm over a column stride of 600 floats matches Eigen, in full and partial row tiles") {
  RandomStream rng(9, "gemm", 0);
  for (Index m : {37, 40}) {
    const Index n = 20, k = 300, lda = 600;
    const Eigen::MatrixXf a = random_matrix(lda, k, rng);
    const Eigen::MatrixXf b = random_matrix(k, n, rng);
    Eigen::MatrixXf c(m, n);
    gemm(m, n, k, 1.0f, a.data(), lda, Operand{b.data(), k}, c.data(), m, Accumulate::kNo);
    CHECK((c - a.topRows(m) * b).cwiseAbs().maxCoeff() < 1e-4);
  }
}
