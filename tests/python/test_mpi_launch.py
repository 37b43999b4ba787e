"""tests/python/mpi/launch.py, the mpirun wrapper of the wp.distributed tests in CTest: without
mpirun it reports the test as skipped (exit 77) with the reason, instead of failing or passing."""
import os
import subprocess
import sys

LAUNCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mpi", "launch.py")


def run(args, **env):
    return subprocess.run([sys.executable, LAUNCH] + args, capture_output=True, text=True,
                          env=dict(os.environ, **env))


def test_without_mpirun_the_test_is_skipped_with_the_reason(tmp_path):
    p = run(["2", sys.executable, "-c", "print('ran')"], PATH=str(tmp_path))  # a PATH with no mpirun
    assert p.returncode == 77
    assert p.stdout.strip() == "SKIP: mpirun is not installed (Debian: apt-get install openmpi-bin python3-mpi4py)"
    assert "ran" not in p.stdout


def test_bad_usage_is_an_error():
    p = run(["two", "python3"])
    assert p.returncode == 2 and "usage: launch.py [--require-cuda] N COMMAND..." in p.stderr
