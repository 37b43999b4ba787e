"""wp.distributed under mpirun: a rank that dies of an uncaught exception stops every rank, with
its rank and its reason, instead of leaving the others waiting in a collective for ever. Runs
mpirun itself (this file is not started under mpirun); skipped without mpirun or mpi4py."""
import os
import shutil
import subprocess
import sys

import pytest

SCRIPT = """
import weft as wp
wp.distributed.init()
if wp.distributed.rank() == 1:
    raise ValueError("the scenario file of rank 1 is missing")
a = wp.zeros(4, dtype=float, device="cpu")
wp.distributed.all_reduce(a)   # rank 0 waits here for rank 1, which never comes
print("rank", wp.distributed.rank(), "finished")
"""


def test_an_uncaught_exception_on_one_rank_stops_the_job(tmp_path):
    if shutil.which("mpirun") is None:
        pytest.skip("mpirun is not installed (Debian: apt-get install openmpi-bin)")
    if subprocess.run([sys.executable, "-c", "from mpi4py import MPI"], capture_output=True).returncode != 0:
        pytest.skip("mpi4py cannot be used here (Debian: apt-get install python3-mpi4py)")
    script = tmp_path / "fails.py"
    script.write_text(SCRIPT)
    command = ["mpirun", "-np", "2", "--oversubscribe"] + (["--allow-run-as-root"] if os.geteuid() == 0 else [])
    try:
        p = subprocess.run(command + [sys.executable, str(script)], capture_output=True, text=True, timeout=240)
    except subprocess.TimeoutExpired:
        pytest.fail("the job hung: rank 0 was left waiting in all_reduce after rank 1 died")
    assert p.returncode != 0
    # The message itself, not "ValueError: ..." as one string: mpirun's MPI_ABORT banner can land
    # between the exception's type and its message (Python writes them separately, and mpirun
    # forwards the ranks' stderr as it reads it); the line below names the type.
    assert "the scenario file of rank 1 is missing" in p.stderr
    assert "wp.distributed: rank 1 of 2 stopped by an uncaught ValueError; stopping every rank" in p.stderr
    assert "finished" not in p.stdout
