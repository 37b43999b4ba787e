"""wp.testing: gradient regression tests in Python (docs/gradient-testing.md).

    def test_spring_gradients(gradient_golden):          # the pytest fixture below
        k = wp.array(np.array([200.0, 100.0], dtype=np.float32), requires_grad=True)
        gradient_golden.check(lambda k: simulate(k), {"stiffness": k})

    wp.testing.assert_gradients_close(simulate, {"stiffness": k}, golden="springs.npz", rtol=1e-2)

assert_gradients_close(fn, params) calls fn(*params.values()), which returns the loss (a
one-element float array), and checks the gradients a wp.Tape gives against central finite
differences (wp.autograd.check_function: two step sizes, a sample of entries) and, with a golden,
against stored gradients (the loss too). A failure raises AssertionError whose message holds the
finite-difference table, the golden's diff table and how to accept an intended change.

Golden files are the .npz files of `weft gradcheck --golden`: "loss" (a float64 scalar) and one
float64 vector per parameter name. They are written only on request (update=True, or pytest's
--weft-update-goldens flag for the fixture), to a temporary name and renamed.

The pytest fixture `gradient_golden` (weft/pytest_plugin.py) keeps each test's golden next to its
test file, in <test file stem>.goldens/<test name>[.<name>].npz. Enable it with
`pytest_plugins = ["weft.pytest_plugin"]` in a conftest.py; a first run without the flag fails,
saying how to create the file.
"""

import os as _os

import numpy as _np

from . import _weft
from . import autograd as _autograd

__all__ = ["assert_gradients_close", "read_golden", "write_golden", "GradientGolden"]


def read_golden(path):
    """(loss, {name: float64 vector}) from a golden .npz."""
    with _np.load(path) as data:
        loss = float(data["loss"]) if "loss" in data.files else None
        return loss, {k: _np.asarray(data[k], dtype=_np.float64).reshape(-1) for k in data.files if k != "loss"}


def write_golden(path, loss, gradients):
    """Writes a golden .npz to path + '.tmp' and renames it to path (readers see the old or the new)."""
    tmp = str(path) + ".tmp"
    arrays = {"loss": _np.float64(loss)}
    arrays.update({k: _np.asarray(v, dtype=_np.float64).reshape(-1) for k, v in gradients.items()})
    with open(tmp, "wb") as f:
        _np.savez(f, **arrays)
    _os.replace(tmp, path)


def _as_params(params):
    if isinstance(params, dict):
        return list(params.keys()), list(params.values())
    params = list(params)
    return [f"params[{i}]" for i in range(len(params))], params


def _labels(name, n):
    return [f"{name}[{i}]" for i in range(n)]


def assert_gradients_close(fn, params, golden=None, rtol=1e-2, atol=0.0, eps=1e-3, golden_rtol=1e-4, max_entries=8,
                           update=False):
    """Checks the gradients of fn(*params) with respect to params ({name: wp.array} or a list).

    golden: None; a dict {name: values} (and optionally "loss": value); or the path of a golden
    .npz. update=True writes that file from this run (after the finite-difference check passed)
    instead of comparing. rtol/atol/eps/max_entries: the finite-difference check; golden_rtol:
    how far an entry may move from its golden. Returns the FunctionCheck."""
    names, arrays = _as_params(params)
    r = _autograd.check_function(fn, arrays, names=names, eps=eps, atol=atol, rtol=rtol, max_entries=max_entries)
    now = {n: (r.gradients[n].tolist(), _labels(n, len(r.gradients[n]))) for n in names}
    problems = []
    if not r.passed:
        problems.append("the gradients disagree with central finite differences:\n" + r.table)
    hint = "pass update=True" if golden is None or isinstance(golden, dict) else None
    if isinstance(golden, (str, _os.PathLike)):
        path = _os.fspath(golden)
        exists = _os.path.exists(path)
        if update:
            if not r.passed:
                raise AssertionError("\n".join(problems) + f"\ngolden {path} not written: the check failed")
            old_loss, old = read_golden(path) if exists else (None, None)
            old_dict = None if old is None else {k: (v.tolist(), _labels(k, len(v))) for k, v in old.items()}
            merged = dict(old or {})
            merged.update(r.gradients)
            write_golden(path, r.loss, merged)
            print(f"golden {path}: {'updated' if exists else 'created'}\n"
                  + _weft.describe_golden_update(r.loss, now, old_loss, old_dict, float(golden_rtol)), end="")
            return r
        if not exists:
            raise AssertionError(f"no golden gradient file {path}; write it once on purpose (update=True, or pytest "
                                 "--weft-update-goldens with the gradient_golden fixture)" + ("\n" + "\n".join(problems) if problems else ""))
        golden_loss, stored = read_golden(path)
        golden = dict(stored)
        if golden_loss is not None:
            golden["loss"] = golden_loss
        hint = "run pytest with --weft-update-goldens (or pass update=True) to accept the new values"
    if golden is not None:
        golden = dict(golden)
        golden_loss = golden.pop("loss", None)
        stored = {k: (_np.asarray(v, dtype=_np.float64).reshape(-1).tolist(), []) for k, v in golden.items()}
        passed, table = _weft.compare_golden(r.loss if golden_loss is not None else None, now, golden_loss, stored,
                                             float(golden_rtol))
        if not passed:
            problems.append(table.rstrip("\n") + f"\nif the change is intended, {hint}")
    if problems:
        raise AssertionError("\n".join(problems))
    return r


class GradientGolden:
    """The `gradient_golden` fixture: check(fn, params, name=None, **options) compares with the
    golden of this test (created or rewritten only under --weft-update-goldens)."""

    def __init__(self, test_path, test_name, update):
        self._dir = _os.path.join(_os.path.dirname(test_path), _os.path.splitext(_os.path.basename(test_path))[0] + ".goldens")
        self._test = "".join(c if c.isalnum() or c in "-_." else "_" for c in test_name)
        self.update = update

    def path(self, name=None):
        return _os.path.join(self._dir, self._test + (f".{name}" if name else "") + ".npz")

    def check(self, fn, params, name=None, **options):
        path = self.path(name)
        if self.update:
            _os.makedirs(self._dir, exist_ok=True)
        return assert_gradients_close(fn, params, golden=path, update=self.update, **options)
