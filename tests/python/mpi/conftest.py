"""pytest setup for the tests run under mpirun (tests/python/mpi/CMakeLists.txt): every rank runs
the same tests in the same order, and each test's collectives meet those of the other ranks. The
group is joined once per process; a test that needs another init() finalizes and joins again."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "examples"))

import weft as wp  # noqa: E402

try:
    from mpi4py import MPI  # noqa: F401
except (ImportError, RuntimeError, OSError) as e:  # not installed, or installed without an MPI library
    MPI = None
    _reason = f"mpi4py cannot be used here ({type(e).__name__}: {e})"


@pytest.fixture
def dist():
    """wp.distributed, initialised (MPI.COMM_WORLD, NCCL 'auto'); left initialised."""
    if MPI is None:
        pytest.skip(_reason)
    if not wp.distributed.is_initialized():
        wp.distributed.init()
    return wp.distributed


_exit_status = 0


def pytest_sessionfinish(session, exitstatus):
    global _exit_status
    _exit_status = int(exitstatus)


def pytest_unconfigure(config):
    """A rank whose tests failed stops every rank once its report is printed: the others may be
    waiting in a collective this rank will never reach (and its MPI_Finalize would wait for them)."""
    if MPI is not None and _exit_status not in (0, 5) and MPI.COMM_WORLD.Get_size() > 1:
        sys.stdout.flush()
        sys.stderr.flush()
        MPI.COMM_WORLD.Abort(_exit_status)
