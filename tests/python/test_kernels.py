"""Kernels from Python (python/weft/kernels.py): compile errors are wp.CompileError carrying the
compiler's clang-style text (file:line:col into this file, the source line and a caret, in a
kernel or in a func it calls), and compiled kernels go through the disk cache: a second process
compiling the same kernels finds them in $WEFT_CACHE_DIR and compiles nothing
(runtime::cache_stats() counts hits and misses)."""
import inspect
import json
import os
import re
import subprocess
import sys
import textwrap

import pytest

import weft as wp


@wp.kernel
def misspelled(values: wp.array(dtype=float)):
    i = wp.tid()
    values[i] = valeus[i] * 2.0  # noqa: F821 (the error under test)


def _line_of(kernel, needle):
    lines, first = inspect.getsourcelines(kernel.func)
    for k, text in enumerate(lines):
        if needle in text:
            return first + k, text
    raise AssertionError(needle)


def test_compile_error_points_into_this_file(device):
    with pytest.raises(wp.CompileError) as info:
        wp.launch(misspelled, dim=1, inputs=[wp.zeros(1, dtype=float, device=device)], device=device)
    msg = str(info.value)
    line, text = _line_of(misspelled, "valeus[i]")
    col = text.index("valeus") + 1
    assert f"{__file__}:{line}:{col}: error:" in msg
    assert "valeus" in msg and "did you mean 'values'?" in msg
    # The source line, then a caret under the name.
    lines = msg.splitlines()
    k = next(i for i, s in enumerate(lines) if s.strip() == text.strip())
    assert lines[k + 1].index("^") == lines[k].index("valeus")
    assert isinstance(info.value, Exception)


@wp.func
def bad_helper(x: float) -> float:
    return x + undefined_thing  # noqa: F821


@wp.kernel
def calls_bad_helper(values: wp.array(dtype=float)):
    i = wp.tid()
    values[i] = bad_helper(values[i])


def test_compile_error_in_a_func_names_the_func_line():
    with pytest.raises(wp.CompileError) as info:
        calls_bad_helper.compile()
    lines, first = inspect.getsourcelines(bad_helper.func)
    line = first + next(k for k, s in enumerate(lines) if "undefined_thing" in s)
    assert re.search(rf"{re.escape(__file__)}:{line}:\d+: error: .*undefined_thing", str(info.value))


SCRIPT = textwrap.dedent('''
    import json
    import numpy as np
    import weft as wp

    @wp.func
    def twice(x: float) -> float:
        return 2.0 * x

    @wp.kernel
    def scale(values: wp.array(dtype=float)):
        i = wp.tid()
        values[i] = twice(values[i])

    a = wp.array(np.arange(4, dtype=np.float32))
    wp.launch(scale, dim=4, inputs=[a])
    print(json.dumps({"values": a.list(), "stats": wp.cache_stats()}))
''')


def _run(script, cache_dir):
    env = dict(os.environ)
    env["WEFT_CACHE_DIR"] = str(cache_dir)
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(wp.__file__)))
    env["PYTHONPATH"] = os.pathsep.join([package_root, env.get("PYTHONPATH", "")])
    out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_second_process_compiles_nothing(tmp_path):
    script = tmp_path / "cached_kernel.py"
    script.write_text(SCRIPT)
    cache_dir = tmp_path / "cache"
    first = _run(script, cache_dir)
    assert first["values"] == [0.0, 2.0, 4.0, 6.0]
    assert first["stats"]["misses"] >= 1 and first["stats"]["hits"] == 0
    assert any(cache_dir.iterdir())
    second = _run(script, cache_dir)
    assert second["values"] == [0.0, 2.0, 4.0, 6.0]
    assert second["stats"]["misses"] == 0 and second["stats"]["hits"] >= 1
