// Softmax cross-entropy on logits, computed stably through the log-sum-exp.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <span>

namespace dlsim::models {

/// Sum over the n columns of -log softmax(logits[:, s])[labels[s]]; logits: (classes, n).
/// When dlogits (classes, n) is given it receives the gradient of the *mean* loss:
/// (softmax - onehot) / n. Precondition: labels.size() == n, every label < classes.
double softmax_cross_entropy(Eigen::Map<const Eigen::MatrixXf> logits,
                             std::span<const uint8_t> labels, Eigen::Map<Eigen::MatrixXf>* dlogits);

/// The index of the largest logit of column s (the first one on ties).
Eigen::Index predicted_class(const Eigen::Map<const Eigen::MatrixXf>& logits, Eigen::Index s);

}  // namespace dlsim::models
