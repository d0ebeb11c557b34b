// What started this process: a plain shell, or an MPI launcher (mpirun, srun) as one of several
// tasks. Read from the environment variables the launchers set.
#pragma once

namespace dlsim {

/// True when mpirun (Open MPI), a PMIx or a PMI launcher started this process.
bool started_by_mpi_launcher();

/// The number of tasks a launcher started together with this one (1 when none is known):
/// OMPI_COMM_WORLD_SIZE, PMI_SIZE, or srun's SLURM_STEP_NUM_TASKS.
unsigned launcher_task_count();

}  // namespace dlsim
