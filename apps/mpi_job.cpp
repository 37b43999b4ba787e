// apps/mpi_job.cpp: the few MPI calls of `weft run` (init, local rank, gather, abort), compiled
// with or without MPI (WEFT_HAVE_MPI, from CMake's find_package(MPI)).
#include "apps/mpi_job.h"

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#if WEFT_HAVE_MPI
#define OMPI_SKIP_MPICXX 1  // the C API only: weft links MPI::MPI_C
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#endif

namespace weft::apps {

namespace {

[[maybe_unused]] int env_int(const char* name, int dflt) {
    const char* v = std::getenv(name);
    return v && *v ? std::atoi(v) : dflt;
}

}  // namespace

bool launched_by_mpirun() { return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_SIZE") || std::getenv("PMIX_RANK"); }

MpiJob MpiJob::start() {
    MpiJob job;
    if (!launched_by_mpirun()) return job;
#if WEFT_HAVE_MPI
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) MPI_Init(nullptr, nullptr);
    job.mpi_ = true;
    MPI_Comm_rank(MPI_COMM_WORLD, &job.rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &job.ranks_);
    MPI_Comm local;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, job.rank_, MPI_INFO_NULL, &local);
    MPI_Comm_rank(local, &job.local_rank_);
    MPI_Comm_free(&local);
#else
    const int size = env_int("OMPI_COMM_WORLD_SIZE", env_int("PMI_SIZE", 1));
    if (size > 1)
        throw std::runtime_error(
            "error: this weft was built without MPI, so it cannot split a run across the " + std::to_string(size) +
            " processes mpirun started (each would run every world); install libopenmpi-dev and rebuild, or run "
            "without mpirun");
#endif
    return job;
}

MpiJob::~MpiJob() {
#if WEFT_HAVE_MPI
    if (mpi_) MPI_Finalize();
#endif
}

void MpiJob::fail(int code, const std::string& message) const {
    fprintf(stderr, "%s\n", message.c_str());
    fflush(stderr);
    fflush(stdout);
#if WEFT_HAVE_MPI
    if (mpi_) MPI_Abort(MPI_COMM_WORLD, code);
#endif
    std::exit(code);
}

std::vector<double> MpiJob::gather(const std::vector<double>& values) const {
#if WEFT_HAVE_MPI
    if (mpi_) {
        std::vector<double> all(rank_ == 0 ? values.size() * size_t(ranks_) : 0);
        MPI_Gather(values.data(), int(values.size()), MPI_DOUBLE, all.data(), int(values.size()), MPI_DOUBLE, 0, MPI_COMM_WORLD);
        return all;
    }
#endif
    return values;
}

}  // namespace weft::apps
