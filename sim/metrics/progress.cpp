#include "sim/metrics/progress.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace dlsim {

Progress::Progress(ProgressMode mode, int64_t total_iterations, std::ostream& out)
    : mode_(mode), total_(total_iterations), out_(out), start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

void Progress::update(int64_t iteration, SimTime simulated, double mean_accuracy,
                      uint64_t events) {
  if (mode_ == ProgressMode::kQuiet) return;
  if (mode_ == ProgressMode::kLines) {
    if (iteration < next_line_ && iteration != total_) return;
    next_line_ = iteration + std::max<int64_t>(1, total_ / 10);
    draw(iteration, simulated, mean_accuracy, events);
    out_ << '\n';
    return;
  }
  const auto now = std::chrono::steady_clock::now();
  if (now - last_draw_ < std::chrono::milliseconds(200) && iteration != total_) return;
  last_draw_ = now;
  out_ << '\r';
  draw(iteration, simulated, mean_accuracy, events);
  out_ << std::flush;
  drawn_ = true;
}

void Progress::draw(int64_t iteration, SimTime simulated, double mean_accuracy, uint64_t events) {
  const double done = total_ > 0 ? static_cast<double>(iteration) / static_cast<double>(total_) : 1;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double eta = done > 0 ? elapsed * (1 - done) / done : 0;
  std::string bar;
  if (mode_ == ProgressMode::kBar) {
    // Clamped: a bar never runs past its 24 cells (and GCC 12 sees no negative length).
    const auto filled = static_cast<size_t>(std::clamp(done, 0.0, 1.0) * 24);
    bar.append("[").append(filled, '#').append(24 - filled, '.').append("] ");
  }
  const std::string accuracy =
      std::isnan(mean_accuracy) ? std::string("-") : fmt::format("{:.3f}", mean_accuracy);
  out_ << fmt::format("{}iter {}/{}  sim {:.3f}s  acc {}  events {}  eta {:.0f}s", bar, iteration,
                      total_, simulated.seconds(), accuracy, events, eta);
}

void Progress::finish() {
  if (mode_ == ProgressMode::kBar && drawn_) out_ << '\n' << std::flush;
}

}  // namespace dlsim
