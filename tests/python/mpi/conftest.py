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
except ImportError as e:  # the tests skip; run through launch.py, they are not even started
    MPI = None
    _reason = f"mpi4py is not available ({e})"


@pytest.fixture
def dist():
    """wp.distributed, initialised (MPI.COMM_WORLD, NCCL 'auto'); left initialised."""
    if MPI is None:
        pytest.skip(_reason)
    if not wp.distributed.is_initialized():
        wp.distributed.init()
    return wp.distributed
