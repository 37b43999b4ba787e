"""Runs a command under `mpirun -np N` for CTest (tests/python/mpi/CMakeLists.txt):

    launch.py [--require-cuda] N COMMAND...

Exits 77 (CTest's SKIP_RETURN_CODE for these tests) with the reason on stdout when mpirun or
mpi4py is missing, and with --require-cuda when weft sees no CUDA device. --oversubscribe lets N exceed the cores (CI has 2), and as root OpenMPI
wants --allow-run-as-root. Otherwise it returns mpirun's exit status: non-zero when any rank
failed (OpenMPI then ends the other ranks, so a failed rank does not leave the others waiting).
"""
import os
import shutil
import subprocess
import sys

SKIP = 77


def main():
    args = sys.argv[1:]
    require_cuda = args[:1] == ["--require-cuda"]
    if require_cuda:
        args = args[1:]
    if len(args) < 2 or not args[0].isdigit():
        print("usage: launch.py [--require-cuda] N COMMAND...", file=sys.stderr)
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
    if require_cuda:
        probe = subprocess.run([sys.executable, "-c", "import weft, sys; sys.exit(0 if weft.is_cuda_available() else 1)"])
        if probe.returncode != 0:
            print("SKIP: no CUDA device here (these tests run on a GPU machine; docs/scale-out.md says how)")
            return SKIP
    command = [mpirun, "-np", args[0], "--oversubscribe"]
    if os.geteuid() == 0:
        command.append("--allow-run-as-root")
    command += args[1:]
    sys.stdout.flush()
    return subprocess.run(command).returncode


if __name__ == "__main__":
    sys.exit(main())
