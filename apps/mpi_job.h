// apps/mpi_job.h: `weft run` under mpirun (docs/scale-out.md, "mpirun weft run"). Each rank runs
// a contiguous block of the scene's worlds on its own device; rank 0 prints one summary gathered
// from all; a rank that fails stops the whole job (MPI_Abort) after printing "rank K: REASON", so
// a job never hangs waiting for a rank that is gone.
//
//   MpiJob job = MpiJob::start();          // MPI_Init only when launched by mpirun
//   if (job.ranks() > 1) ...               // split the worlds: engine::WorldRange{job.rank(), job.ranks()}
//   job.fail(1, "rank 1: ...");            // [[noreturn]]: MPI_Abort
//   auto all = job.gather({a, b, c});      // on rank 0: every rank's values, rank by rank
//
// MPI is linked through CMake's find_package(MPI) (Debian: libopenmpi-dev). A weft built without
// it runs alone as before; launched by mpirun with more than one process it refuses to run, since
// every process would otherwise simulate every world and write the same files.
#pragma once

#include <string>
#include <vector>

namespace weft::apps {

class MpiJob {
public:
    // Initialises MPI when this process was started by mpirun (OMPI_COMM_WORLD_SIZE, PMI_SIZE or
    // PMIX_RANK in the environment), else a job of one rank. Throws std::runtime_error when
    // started by mpirun with several processes and built without MPI.
    static MpiJob start();
    MpiJob(const MpiJob&) = delete;
    MpiJob(MpiJob&& o) noexcept : rank_(o.rank_), ranks_(o.ranks_), local_rank_(o.local_rank_), mpi_(o.mpi_) { o.mpi_ = false; }
    ~MpiJob();  // MPI_Finalize when MPI was initialised

    int rank() const { return rank_; }
    int ranks() const { return ranks_; }
    int local_rank() const { return local_rank_; }  // the rank among the processes of this host
    bool distributed() const { return ranks_ > 1; }

    // Prints `message` to stderr and stops every rank with exit status `code` (MPI_Abort), or
    // exits this process alone when there is no MPI job.
    [[noreturn]] void fail(int code, const std::string& message) const;
    // Every rank's `values` (the same count on each), rank by rank, on rank 0; empty elsewhere.
    std::vector<double> gather(const std::vector<double>& values) const;

private:
    MpiJob() = default;
    int rank_ = 0, ranks_ = 1, local_rank_ = 0;
    bool mpi_ = false;
};

// True when the environment says mpirun (OpenMPI, MPICH / PMI, PMIx) started this process.
bool launched_by_mpirun();

}  // namespace weft::apps
