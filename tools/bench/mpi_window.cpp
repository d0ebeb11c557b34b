// The two costs a run partitioned over MPI ranks adds to one process (docs/partitioned-runs.md,
// "What it would cost"): closing a conservative window (an all-reduce of the earliest pending
// time, and of the sent and received message counts) and moving a model from one rank to
// another. Usage, e.g. on one 2-core machine:
//   mpirun --allow-run-as-root --oversubscribe -np 2 build/tools/bench/mpi_window [FLOATS] [REPS]
// FLOATS defaults to 203,530 (the default scenario's MLP 784-256-10), REPS to 200. Prints the
// median over REPS of each cost, measured on rank 0.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long floats = argc > 1 ? std::atol(argv[1]) : 203530;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 200;
  if (floats <= 0 || reps <= 0 || size < 2) {
    if (rank == 0) std::fprintf(stderr, "usage: mpirun -np R>=2 mpi_window [FLOATS>0] [REPS>0]\n");
    MPI_Finalize();
    return 2;
  }

  // A window's end: every rank learns the earliest next event (min) and whether every message
  // sent was received (sums), as ns-3's granted-time-window scheme does.
  std::vector<double> window_s;
  for (int r = 0; r < reps; ++r) {
    int64_t local[3] = {1000 + rank, rank, rank}, global[3];
    MPI_Barrier(MPI_COMM_WORLD);
    const double t = now_s();
    MPI_Allreduce(&local[0], &global[0], 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&local[1], &global[1], 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    window_s.push_back(now_s() - t);
  }

  // A model crossing ranks: rank 0 sends one to rank 1, which sends it back (half the round trip).
  std::vector<float> model(static_cast<size_t>(floats), 1.0f);
  std::vector<double> transfer_s;
  for (int r = 0; r < reps; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t = now_s();
    if (rank == 0) {
      MPI_Send(model.data(), static_cast<int>(floats), MPI_FLOAT, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(model.data(), static_cast<int>(floats), MPI_FLOAT, 1, 0, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(model.data(), static_cast<int>(floats), MPI_FLOAT, 0, 0, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      MPI_Send(model.data(), static_cast<int>(floats), MPI_FLOAT, 0, 0, MPI_COMM_WORLD);
    }
    transfer_s.push_back((now_s() - t) / 2);
  }

  if (rank == 0) {
    const double bytes = 4.0 * static_cast<double>(floats);
    const double window = median(window_s), transfer = median(transfer_s);
    std::printf("ranks %d, model %ld floats (%.0f KB), %d repetitions, medians:\n", size, floats,
                bytes / 1024, reps);
    std::printf("  window end (min + 2 sums all-reduced): %8.1f us\n", window * 1e6);
    std::printf("  one model from rank 0 to rank 1:       %8.1f us (%.2f GB/s)\n", transfer * 1e6,
                bytes / transfer / 1e9);
  }
  MPI_Finalize();
  return 0;
}
