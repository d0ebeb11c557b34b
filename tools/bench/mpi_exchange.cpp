// What one window of a run partitioned over MPI ranks costs the engine (sim/core/rank_windows.cpp
// over sim/distributed): shipping EVENTS events to every other rank (each with 8 bytes of content,
// as the toy network's messages) through MpiPartitionExchange::exchange (one round: an
// MPI_Allgather of counts and a message to each rank), then the window's agreement
// (start_window: one MPI_Allreduce).
// Usage: mpirun --allow-run-as-root --oversubscribe -np 2 build/tools/bench/mpi_exchange
//        [EVENTS] [REPS]   (defaults 16 and 2000). Prints the median over REPS, on rank 0.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "sim/distributed/mpi_partition_exchange.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  {
    dlsim::MpiPartitionExchange exchange;
    const size_t events = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 16;
    const int reps = argc > 2 ? std::atoi(argv[2]) : 2000;
    constexpr size_t kEventBytes = 40 + 8;  // the wire header, then the content
    std::vector<size_t> counts(exchange.ranks(), events * kEventBytes);
    counts[exchange.rank()] = 0;
    const std::vector<std::byte> out((exchange.ranks() - 1) * events * kEventBytes, std::byte{1});
    std::vector<double> window_s;
    for (int k = 0; k < reps; ++k) {
      MPI_Barrier(MPI_COMM_WORLD);
      const auto t = std::chrono::steady_clock::now();
      const dlsim::ExchangeRound in = exchange.exchange(out, counts, false);
      exchange.start_window(dlsim::SimTime{1000 + static_cast<int64_t>(in.incoming.size())}, true);
      window_s.push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count());
    }
    std::sort(window_s.begin(), window_s.end());
    if (exchange.rank() == 0)
      std::printf("ranks %u, %zu events to each other rank, %d repetitions: median %.1f us\n",
                  exchange.ranks(), events, reps, window_s[window_s.size() / 2] * 1e6);
  }
  MPI_Finalize();
  return 0;
}
