"""bench/cpu/compile_size.py: CPU compile time against kernel size.

Generates kernels of N straight-line statements (each combines two earlier values with `*`, `+`,
`wp.sin` or `wp.sqrt`, so the kernel is one large data-flow graph, the shape that made LLVM's
InstCombine take minutes) and times `weft launch --dim 1` with an empty disk cache, so the time
is front end + Clang + LLVM at the level runtime/cpu/cpu_backend.h chooses for that size
(by the statements of the largest function: here about N).

    /usr/bin/python3 bench/cpu/compile_size.py build/apps/weft 250 500 1000 2000

Prints one row per size: statements, generated C++ lines, -O level, seconds. Results go to
bench/results/cpu_compile_size.md with the machine and the command.
"""
import os
import random
import re
import subprocess
import sys
import tempfile
import time


def kernel(n):
    rng = random.Random(n)
    lines = ["import weft as wp", "", "@wp.kernel", "def big(a: wp.array(dtype=float), out: wp.array(dtype=float)):",
             "    i = wp.tid()", "    x0 = a[i]"]
    for k in range(1, n):
        p, q = rng.randrange(k), rng.randrange(k)
        form = rng.randrange(4)
        rhs = [f"x{p} * 0.999 + x{q}", f"x{p} - 0.5 * x{q}", f"wp.sin(x{p}) + x{q}", f"wp.sqrt(wp.abs(x{p})) * x{q}"][form]
        lines.append(f"    x{k} = {rhs}")
    lines.append(f"    out[i] = x{n - 1}")
    return "\n".join(lines) + "\n"


def main():
    weft = sys.argv[1]
    for n in [int(s) for s in sys.argv[2:]]:
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, f"big{n}.py")
            with open(path, "w") as f:
                f.write(kernel(n))
            cpp = subprocess.run([weft, "compile", path, "--emit", "cpp"], capture_output=True, text=True).stdout
            env = dict(os.environ, WEFT_CACHE_DIR=os.path.join(d, "cache"))
            t = time.perf_counter()
            r = subprocess.run([weft, "launch", path, "--kernel", "big", "--dim", "1", "--print", "1"], env=env,
                               capture_output=True, text=True)
            dt = time.perf_counter() - t
            level = re.findall(r"-O(\d)", r.stderr)
            print(f"{n:6d} statements  {cpp.count(chr(10)):7d} C++ lines  rc={r.returncode}  {dt:8.1f} s  "
                  f"{'progress: -O' + level[0] if level else ''}", flush=True)


if __name__ == "__main__":
    main()
