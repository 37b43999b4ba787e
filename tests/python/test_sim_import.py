"""wp.sim.parse_urdf / parse_mjcf under Warp 1.9.1's keyword names (python/weft/sim_import.py):
what they add (checked against the formulas), their results and warnings, and the keywords that
Weft refuses by name."""
import math
import os

import pytest

import weft as wp
import weft.sim  # noqa: F401

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "engine", "data")
SCENES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scenes")

pytestmark = pytest.mark.skipif(not wp.sim._weft.has_xml_import, reason="built without tinyxml2 (no URDF/MJCF import)")


def test_parse_urdf_adds_links_and_joints():
    b = wp.sim.ModelBuilder()
    info = wp.sim.parse_urdf(os.path.join(DATA, "two_link.urdf"), b, xform=((1.0, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0)),
                             floating=True, density=500.0)
    assert (info.body_start, info.body_end) == (0, 3)
    assert info.joint_index["shoulder"] == 1
    assert b.body_mass[0] == pytest.approx(0.2 * 0.4 * 0.6 * 500.0, rel=1e-6)
    assert list(b.finalize("cpu").body_q.numpy()[0][:3]) == pytest.approx([1.0, 0.0, 0.0])
    assert len(info.warnings) == 1 and "not enforced" in info.warnings[0]


def test_parse_mjcf_pendulum_chain():
    b = wp.sim.ModelBuilder()
    info = wp.sim.parse_mjcf(os.path.join(SCENES, "pendulum_chain.xml"), b, stiffness=0.0, damping=0.0)
    assert info.body_end - info.body_start == 3
    r, h = 0.05, 0.2
    m = 1000.0 * (math.pi * r * r * 2 * h + 4.0 / 3.0 * math.pi * r ** 3)
    assert b.body_mass[1] == pytest.approx(m, rel=1e-6)
    # up_axis "Z": the file's z = 2.5 is the builder's y; link 2 is 0.4 m along x.
    assert list(b.finalize("cpu").body_q.numpy()[1][:3]) == pytest.approx([0.4, 2.5, 0.0], abs=1e-6)
    assert info.warnings == []


def test_warnings_are_issued(tmp_path):
    f = tmp_path / "w.xml"
    f.write_text('<mujoco><worldbody><body><geom size="0.1" condim="4"/></body></worldbody></mujoco>')
    with pytest.warns(UserWarning, match="unsupported attribute 'condim' of <geom> ignored"):
        wp.sim.parse_mjcf(str(f), wp.sim.ModelBuilder())


def test_errors_name_file_line_and_element(tmp_path):
    f = tmp_path / "robot.urdf"
    f.write_text('<robot name="r">\n<link name="a"/>\n<link name="b"/>\n'
                 '<joint name="knee" type="revolut"><parent link="a"/><child link="b"/></joint>\n</robot>')
    with pytest.raises(wp.sim.ModelImportError, match=r"robot.urdf:4: joint 'knee': unknown type 'revolut' "
                                                      r"\(did you mean 'revolute'\?\)"):
        wp.sim.parse_urdf(str(f), wp.sim.ModelBuilder())


def test_keywords_not_simulated_are_refused_by_name():
    path = os.path.join(DATA, "two_link.urdf")
    with pytest.raises(TypeError, match=r"parse_urdf\(\) keyword collapse_fixed_joints=True is not simulated by Weft"):
        wp.sim.parse_urdf(path, wp.sim.ModelBuilder(), collapse_fixed_joints=True)
    wp.sim.parse_urdf(path, wp.sim.ModelBuilder(), collapse_fixed_joints=False)  # Warp's default passes
    with pytest.raises(TypeError, match=r"parse_urdf\(\) got an unexpected keyword argument 'dampng' \(did you mean 'damping'\?\)"):
        wp.sim.parse_urdf(path, wp.sim.ModelBuilder(), dampng=1.0)
    with pytest.raises(TypeError, match=r"parse_mjcf\(\) keyword ignore_names=\['x'\] is not simulated by Weft"):
        wp.sim.parse_mjcf(os.path.join(SCENES, "pendulum_chain.xml"), wp.sim.ModelBuilder(), ignore_names=["x"])
    with pytest.raises(TypeError, match="base_joint must be a string of axes"):
        wp.sim.parse_urdf(path, wp.sim.ModelBuilder(), base_joint={"joint_type": 1})
