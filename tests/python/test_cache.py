"""The disk cache seen from Python: a second process compiling the same kernels finds them in
$WEFT_CACHE_DIR and compiles nothing (runtime::cache_stats() counts hits and misses)."""
import json
import os
import subprocess
import sys
import textwrap

import weft as wp

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
