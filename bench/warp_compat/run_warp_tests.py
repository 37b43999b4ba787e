"""Runs NVIDIA Warp's own unit-test files against Weft, with `warp` aliased to `weft`.

    PYTHONPATH=build/python /usr/bin/python3 bench/warp_compat/run_warp_tests.py \
        --warp-git /work/.mirror/NVIDIA+warp/repo --tag v1.9.1 test_codegen test_grad test_struct

Nothing of Warp is copied into this repository: the script extracts Warp's `warp/tests` folder
from a Warp git checkout (git archive) into a temporary directory and, in a fresh subprocess per
test file, makes `import warp` return the `weft` module itself. Weft's submodules answer as
`warp.<name>` (warp.types, warp.sim, warp.autograd ...); `warp.tests` is Warp's test folder.
Warp's tests register one test per device; without a GPU only the `cpu` ones exist.

Prints one line per file (passed / failed / errors / skipped / total) and a summary; with
--markdown, a table for bench/results/. A file that fails to import counts as one error.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

_CHILD = r'''
import importlib, json, sys, types, unittest, io
import weft
sys.modules["warp"] = weft
for name, mod in list(sys.modules.items()):
    if name.startswith("weft."):
        sys.modules["warp." + name[5:]] = mod
tests_pkg = types.ModuleType("warp.tests")
tests_pkg.__path__ = [sys.argv[1]]
sys.modules["warp.tests"] = tests_pkg
weft.tests = tests_pkg
out = {"passed": 0, "failed": 0, "errors": 0, "skipped": 0, "fail_names": [], "import_error": None}
try:
    mod = importlib.import_module("warp.tests." + sys.argv[2])
except BaseException as e:  # noqa: BLE001 - any import failure is the file's one error
    out["errors"] = 1
    out["import_error"] = f"{type(e).__name__}: {e}"[:300]
    print("@@RESULT@@" + json.dumps(out))
    sys.exit(0)
suite = unittest.defaultTestLoader.loadTestsFromModule(mod)
result = unittest.TextTestRunner(stream=io.StringIO() if "-q" in sys.argv else sys.stderr, verbosity=2).run(suite)
# counted per test (a test can report several errors, e.g. from subtests or class setup)
failed_ids = {t.id() for t, _ in result.failures}
error_ids = {t.id() for t, _ in result.errors} - failed_ids
out["failed"] = len(failed_ids)
out["errors"] = len(error_ids)
out["skipped"] = len(result.skipped)
out["passed"] = max(0, result.testsRun - out["failed"] - out["errors"] - out["skipped"])
for t, tb in result.failures + result.errors:
    last = [l for l in tb.strip().splitlines() if l.strip()][-1][:200]
    out["fail_names"].append(f"{t.id().split('.')[-1]}: {last}")
print("@@RESULT@@" + json.dumps(out))
'''


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("files", nargs="+", help="test file names without .py (test_codegen ...)")
    p.add_argument("--warp-git", default="/work/.mirror/NVIDIA+warp/repo", help="a git directory of NVIDIA/warp")
    p.add_argument("--tag", default="v1.9.1")
    p.add_argument("--timeout", type=int, default=1800, help="seconds per test file")
    p.add_argument("--markdown", action="store_true")
    p.add_argument("--verbose", action="store_true", help="print each failing test's last traceback line")
    p.add_argument("--json", help="write the per-file results here")
    args = p.parse_args()

    tmp = tempfile.mkdtemp(prefix="warp_tests_")
    archive = subprocess.run(["git", "-C", args.warp_git, "archive", args.tag, "warp/tests"],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
    tests_dir = os.path.join(tmp, "warp", "tests")

    results = {}
    for f in args.files:
        try:
            r = subprocess.run([sys.executable, "-c", _CHILD, tests_dir, f, "-q"], capture_output=True, text=True,
                               timeout=args.timeout, env=os.environ)
            line = [l for l in r.stdout.splitlines() if l.startswith("@@RESULT@@")]
            if line:
                res = json.loads(line[-1][len("@@RESULT@@"):])
            else:
                res = {"passed": 0, "failed": 0, "errors": 1, "skipped": 0,
                       "import_error": "crashed: " + (r.stderr.strip().splitlines() or ["?"])[-1][:300], "fail_names": []}
        except subprocess.TimeoutExpired:
            res = {"passed": 0, "failed": 0, "errors": 1, "skipped": 0, "import_error": "timeout", "fail_names": []}
        res["total"] = res["passed"] + res["failed"] + res["errors"] + res["skipped"]
        results[f] = res
        print(f"{f}: {res['passed']} passed, {res['failed']} failed, {res['errors']} errors, "
              f"{res['skipped']} skipped of {res['total']}" + (f"  [{res['import_error']}]" if res["import_error"] else ""),
              flush=True)
        if args.verbose:
            for n in res["fail_names"]:
                print("    " + n)
    tot = {k: sum(r[k] for r in results.values()) for k in ("passed", "failed", "errors", "skipped", "total")}
    print(f"TOTAL: {tot['passed']} passed of {tot['total']} ({100.0 * tot['passed'] / max(1, tot['total']):.1f}%)")
    if args.markdown:
        print("\n| file | passed | failed | errors | skipped | total |\n|---|---|---|---|---|---|")
        for f, r in results.items():
            print(f"| {f} | {r['passed']} | {r['failed']} | {r['errors']} | {r['skipped']} | {r['total']} |")
        print(f"| **total** | {tot['passed']} | {tot['failed']} | {tot['errors']} | {tot['skipped']} | {tot['total']} |")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=1)


if __name__ == "__main__":
    main()
