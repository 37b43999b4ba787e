// apps/mpi_job.h as compiled without MPI (this binary builds apps/mpi_job.cpp without
// WEFT_HAVE_MPI, whatever the build found): alone it is a job of one rank; started by mpirun as one
// of several processes it refuses with its message; as the only process it runs.
#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>

#include "apps/mpi_job.h"

namespace {

using weft::apps::MpiJob;

struct ClearMpiEnv {
    ClearMpiEnv() { clear(); }
    ~ClearMpiEnv() { clear(); }
    static void clear() {
        for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"}) unsetenv(v);
    }
};

TEST(MpiJobWithoutMpi, AloneIsOneRank) {
    ClearMpiEnv env;
    EXPECT_FALSE(weft::apps::launched_by_mpirun());
    MpiJob job = MpiJob::start();
    EXPECT_EQ(job.rank(), 0);
    EXPECT_EQ(job.ranks(), 1);
    EXPECT_FALSE(job.distributed());
    EXPECT_EQ(job.gather({1.0, 2.0}), (std::vector<double>{1.0, 2.0}));
}

TEST(MpiJobWithoutMpi, SeveralProcessesOfMpirunAreRefused) {
    ClearMpiEnv env;
    setenv("OMPI_COMM_WORLD_SIZE", "4", 1);
    EXPECT_TRUE(weft::apps::launched_by_mpirun());
    try {
        MpiJob::start();
        FAIL() << "no error";
    } catch (const std::runtime_error& e) {
        EXPECT_EQ(std::string(e.what()),
                  "error: this weft was built without MPI, so it cannot split a run across the 4 processes mpirun started "
                  "(each would run every world); install libopenmpi-dev and rebuild, or run without mpirun");
    }
    setenv("OMPI_COMM_WORLD_SIZE", "1", 1);
    EXPECT_FALSE(MpiJob::start().distributed()) << "mpirun -np 1: one process runs every world";
}

}  // namespace
