"""NVIDIA Warp 1.9.1's own rigid-body examples run on Weft with `warp` answered by `weft` (Warp users
port them by changing their imports), and their outcomes asserted: example_rigid_chain (five
8-link chains, one per joint type, under wp.sim.FeatherstoneIntegrator), example_quadruped (8
URDF quadrupeds standing under FeatherstoneIntegrator with wp.sim.collide) and example_cartpole
(8 URDF double cart-poles, self-collisions off, under SemiImplicitIntegrator).

Nothing of Warp is in this repository: the examples are extracted from a Warp git checkout
(`WEFT_WARP_GIT`, default /work/.mirror/NVIDIA+warp/repo, tag v1.9.1) with `git archive`, as
bench/warp_compat/run_warp_tests.py does for Warp's unit tests; without one the tests skip. Each
example runs in a subprocess in which `import warp` returns `weft` and `warp.examples` is Warp's
examples folder (its assets: the URDF files)."""
import json
import os
import subprocess
import sys
import tarfile
import io

import pytest

WARP_GIT = os.environ.get("WEFT_WARP_GIT", "/work/.mirror/NVIDIA+warp/repo")
TAG = "v1.9.1"

_CHILD = r'''
import importlib, json, sys, types
import numpy as np
import weft
sys.modules["warp"] = weft
for name, mod in list(sys.modules.items()):
    if name.startswith("weft."):
        sys.modules["warp." + name[5:]] = mod
root = sys.argv[1]
ex = types.ModuleType("warp.examples")
ex.__path__ = [root + "/warp/examples"]
ex.__file__ = root + "/warp/examples/__init__.py"
exec(open(ex.__file__).read(), ex.__dict__)
sys.modules["warp.examples"] = ex
weft.examples = ex
mod = importlib.import_module("warp.examples.sim." + sys.argv[2])
e = mod.Example(stage_path=None)
for _ in range(int(sys.argv[3])):
    e.step()
state = e.state_0 if hasattr(e, "state_0") else e.state
out = {"body_q": state.body_q.numpy().tolist(), "joint_q": state.joint_q.numpy().tolist(),
       "joint_type": e.model.joint_type.numpy().tolist(), "joint_q_start": e.model.joint_q_start.numpy().tolist(),
       "articulation_start": e.model.articulation_start.numpy().tolist(), "integrator": type(e.integrator).__name__}
print("@@RESULT@@" + json.dumps(out))
'''


@pytest.fixture(scope="module")
def warp_root(tmp_path_factory):
    if not os.path.isdir(WARP_GIT):
        pytest.skip(f"no Warp git checkout at {WARP_GIT} (set WEFT_WARP_GIT)")
    p = subprocess.run(["git", "-C", WARP_GIT, "archive", TAG, "warp/examples"], capture_output=True)
    if p.returncode != 0:
        pytest.skip(f"git archive {TAG} warp/examples failed in {WARP_GIT}: {p.stderr.decode()[:200]}")
    root = tmp_path_factory.mktemp("warp")
    tarfile.open(fileobj=io.BytesIO(p.stdout)).extractall(root)
    return str(root)


def run_example(root, name, frames):
    p = subprocess.run([sys.executable, "-c", _CHILD, root, name, str(frames)], capture_output=True, text=True, timeout=900)
    line = [x for x in p.stdout.splitlines() if x.startswith("@@RESULT@@")]
    assert p.returncode == 0 and line, f"{name} failed on Weft:\n{p.stderr[-3000:]}"
    return json.loads(line[0][len("@@RESULT@@"):])


def test_rigid_chain_example_runs_under_featherstone(warp_root):
    import numpy as np
    r = run_example(warp_root, "example_rigid_chain", 100)  # 1 s at 100 frames a second
    assert r["integrator"] == "FeatherstoneIntegrator"
    q = np.array(r["body_q"])
    assert np.isfinite(q).all()
    assert len(r["articulation_start"]) == 6  # five chains
    # The revolute chain (articulation 0) swings down under gravity against its +-60 degree limits
    # (limit_ke 1e5): every hinge angle stays within them, a hundredth of a radian of penetration allowed.
    jq = np.array(r["joint_q"])
    revolute = [r["joint_q_start"][j] for j in range(r["articulation_start"][0], r["articulation_start"][1])]
    assert np.all(np.abs(jq[revolute]) <= np.deg2rad(60.0) + 0.01)
    assert np.abs(jq[revolute]).max() > 0.5  # it swung (measured: the first hinge at -0.999 rad, near its -1.047 limit)
    # The fixed chain (articulation 1) has no dofs: a rigid beam hanging from its first link, which
    # is fixed to the world, so every link stays where it started (y = 0).
    fixed_bodies = range(8, 16)
    assert np.allclose(q[list(fixed_bodies), 1], 0.0, atol=1e-5)
    # Every other chain hangs below its anchor.
    assert q[:, 1].max() < 0.01


def test_quadruped_example_stands_under_featherstone(warp_root):
    import numpy as np
    r = run_example(warp_root, "example_quadruped", 100)  # 1 s
    assert r["integrator"] == "FeatherstoneIntegrator"
    q = np.array(r["body_q"])
    assert np.isfinite(q).all()
    bases = [int(x) for x in np.arange(8) * (len(q) // 8)]  # each copy's base body comes first
    heights = q[bases, 1]
    # Released at 0.7 m with the legs at their targets: each stands, neither collapsed onto the
    # ground nor flying off.
    assert np.all(heights > 0.2) and np.all(heights < 0.8), heights


def test_cartpole_example_swings_on_its_rail(warp_root):
    import numpy as np
    r = run_example(warp_root, "example_cartpole", 60)  # 1 s: 10 substeps a frame
    assert r["integrator"] == "SemiImplicitIntegrator"
    q = np.array(r["body_q"]).reshape(8, 4, 7)  # 8 copies of slider, cart, pole1, pole2
    assert np.isfinite(q).all()
    # every copy the same motion, 2 m apart along x
    for k in range(1, 8):
        assert np.allclose(q[k, :, 0] - 2.0 * k, q[0, :, 0], atol=1e-4)
        assert np.allclose(q[k, :, 1:], q[0, :, 1:], atol=1e-4)
    # The slider is fixed to the world (a penalty joint: it sags by about m g / joint_attach_ke =
    # 2.2 kg g / 1600 = 14 mm, as in Warp) and the cart slides along it: without the self-collision
    # filter the 8 m slider box, which overlaps the cart, would throw the cart off its rail.
    slider, cart, pole1 = q[0, 0], q[0, 1], q[0, 2]
    assert np.linalg.norm(slider[:3] - [0.0, 4.0, 0.0]) < 3e-2, slider
    rail = np.array([0.0, 0.0, -1.0])  # the slider's y axis, turned by the -90 degree rotation about x
    off = (cart[:3] - slider[:3]) - rail * np.dot(cart[:3] - slider[:3], rail)
    assert np.linalg.norm(off) < 3e-2, off
    # the first pole, released 0.3 rad from upright, has fallen: its axis is far from vertical
    x, y, z, w = pole1[3:]
    up = np.array([2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)])  # its local z in the world
    assert up[1] < 0.8, up
