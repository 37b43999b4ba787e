"""Runs a command under `mpirun -np N` for CTest (tests/python/mpi/CMakeLists.txt):

    launch.py N COMMAND...

Exits 77 (CTest's SKIP_RETURN_CODE for these tests) with the reason on stdout when mpirun or
mpi4py is missing. --oversubscribe lets N exceed the cores (CI has 2), and as root OpenMPI
wants --allow-run-as-root. Otherwise it returns mpirun's exit status: non-zero when any rank
failed (OpenMPI then ends the other ranks, so a failed rank does not leave the others waiting).
"""
import os
import shutil
import subprocess
import sys

SKIP = 77


def main():
    if len(sys.argv) < 3 or not sys.argv[1].isdigit():
        print("usage: launch.py N COMMAND...", file=sys.stderr)
        return 2
    mpirun = shutil.which("mpirun")
    if mpirun is None:
        print("SKIP: mpirun is not installed (Debian: apt-get install openmpi-bin python3-mpi4py)")
        return SKIP
    probe = subprocess.run([sys.executable, "-c", "import mpi4py"], capture_output=True, text=True)
    if probe.returncode != 0:
        print(f"SKIP: mpi4py cannot be imported by {sys.executable} (Debian: apt-get install python3-mpi4py): "
              f"{probe.stderr.strip().splitlines()[-1] if probe.stderr.strip() else 'no reason given'}")
        return SKIP
    command = [mpirun, "-np", sys.argv[1], "--oversubscribe"]
    if os.geteuid() == 0:
        command.append("--allow-run-as-root")
    command += sys.argv[2:]
    sys.stdout.flush()
    return subprocess.run(command).returncode


if __name__ == "__main__":
    sys.exit(main())
