"""wp.sim.render (python/weft/sim_render.py): Warp's begin_frame/render/end_frame loop writing PNG
frames headless (SimRenderer) or a video through ffmpeg (SimRenderer with an .mp4 path; ffprobe
and ffmpeg's decoder read it back against the PNG frames of the same states) and drawing in a
window (SimRendererOpenGL, under a display or xvfb-run), and the errors: unknown keywords, no
display, no ffmpeg."""
import gc
import os
import shutil
import subprocess
import sys

import pytest

import weft as wp
import weft.sim
from weft import _weft

pytestmark = pytest.mark.skipif(not hasattr(_weft, "ScriptRenderer"), reason="this build has no viewer")


def _ball_model():
    b = wp.sim.ModelBuilder()
    b.add_particle(pos=(0.0, 1.0, 0.0), vel=(0.0, 0.0, 0.0), mass=1.0, radius=0.2)
    return b.finalize(device="cpu")


def test_sim_renderer_writes_a_png_per_frame(tmp_path):
    model = _ball_model()
    states = [model.state(), model.state()]
    integrator = wp.sim.SemiImplicitIntegrator()
    r = wp.sim.render.SimRenderer(model, tmp_path / "frames", screen_width=160, screen_height=120)
    dt = 1.0 / 60.0
    for frame in range(3):
        r.begin_frame(frame * dt)
        r.render(states[0])
        r.end_frame()
        for _ in range(10):
            integrator.simulate(model, states[0], states[1], dt / 10)
            states[0], states[1] = states[1], states[0]
    files = r.save()
    assert [os.path.basename(f) for f in files] == ["frame_00000.png", "frame_00001.png", "frame_00002.png"]
    w, h, first = _weft.read_png(files[0])
    _, _, last = _weft.read_png(files[2])
    assert (w, h) == (160, 120)
    changed = sum(first[i:i + 3] != last[i:i + 3] for i in range(0, len(first), 4))
    assert changed > 10, "the ball fell between frames 0 and 2"
    assert abs(r.time - 2 * dt) < 1e-12


_NO_FFMPEG = not (shutil.which("ffmpeg") and shutil.which("ffprobe"))


@pytest.mark.skipif(_NO_FFMPEG, reason="ffmpeg / ffprobe are not installed (scripts/setup.sh installs ffmpeg)")
def test_sim_renderer_writes_a_video(tmp_path):
    model = _ball_model()
    states = [model.state(), model.state()]
    integrator = wp.sim.SemiImplicitIntegrator()
    video = tmp_path / "out" / "ball.mp4"
    size = dict(screen_width=160, screen_height=120, fps=30)
    pngs = wp.sim.render.SimRenderer(model, tmp_path / "frames", **size)
    mp4 = wp.sim.render.SimRenderer(model, video, **size)
    dt = 1.0 / 30.0
    for frame in range(5):
        for r in (pngs, mp4):
            r.begin_frame(frame * dt)
            r.render(states[0])
            r.end_frame()
        for _ in range(10):
            integrator.simulate(model, states[0], states[1], dt / 10)
            states[0], states[1] = states[1], states[0]
    assert not video.exists(), "the video appears when it is complete"
    assert mp4.save() == [str(video)]
    assert sorted(p.name for p in video.parent.iterdir()) == ["ball.mp4"]
    probe = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                            "stream=width,height,nb_read_frames:format=duration", "-of", "default=noprint_wrappers=1",
                            str(video)], capture_output=True, text=True, check=True).stdout
    kv = dict(line.split("=", 1) for line in probe.split())
    assert (kv["width"], kv["height"], kv["nb_read_frames"]) == ("160", "120", "5")
    assert abs(float(kv["duration"]) - 5 / 30) < 1e-3
    rgb = subprocess.run(["ffmpeg", "-v", "error", "-i", str(video), "-f", "rawvideo", "-pix_fmt", "rgb24", "pipe:1"],
                         capture_output=True, check=True).stdout
    n = 160 * 120
    assert len(rgb) == 5 * n * 3
    for frame, png in enumerate(pngs.save()):
        _, _, rgba = _weft.read_png(png)
        decoded = rgb[frame * n * 3:(frame + 1) * n * 3]
        err = sum(abs(decoded[3 * i + c] - rgba[4 * i + c]) for i in range(0, n, 7) for c in range(3))
        assert err / (3 * len(range(0, n, 7))) < 4.0, f"frame {frame} differs from its PNG"


@pytest.mark.skipif(_NO_FFMPEG, reason="ffmpeg is not installed (scripts/setup.sh installs it)")
def test_video_is_complete_on_close_and_absent_when_dropped(tmp_path):
    model = _ball_model()
    for name, finish in (("closed.mkv", True), ("dropped.mp4", False)):
        r = wp.sim.render.SimRenderer(model, tmp_path / name, screen_width=64, screen_height=48)
        r.begin_frame(0.0)
        r.render(model.state())
        r.end_frame()
        if finish:
            r.close()
        del r
        gc.collect()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["closed.mkv"]
    with pytest.raises(RuntimeError, match="its frames are 65x48, and yuv420p video needs an even width and height"):
        wp.sim.render.SimRenderer(model, tmp_path / "odd.mp4", screen_width=65, screen_height=48)


def test_video_without_ffmpeg_says_so(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(RuntimeError) as e:
        wp.sim.render.SimRenderer(_ball_model(), tmp_path / "ball.mp4")
    assert str(e.value) == (f"SimRenderer: writing {tmp_path / 'ball.mp4'} needs ffmpeg, which is not on PATH: "
                            "apt-get install ffmpeg, or give a folder to write PNG frames")
    assert list(tmp_path.iterdir()) == []


def test_frame_order_is_checked(tmp_path):
    r = wp.sim.render.SimRenderer(_ball_model(), tmp_path)
    with pytest.raises(RuntimeError, match=r"render: call begin_frame\(time\) first"):
        r.render(r.model.state())
    r.begin_frame(0.0)
    with pytest.raises(RuntimeError, match="the previous frame has not ended"):
        r.begin_frame(0.1)


def test_unknown_keywords_raise_type_error_naming_them(tmp_path):
    with pytest.raises(TypeError,
                       match=r"SimRenderer\(\) got unexpected keyword argument\(s\) 'show_rigid_contact_points', 'vsync'"):
        wp.sim.render.SimRenderer(_ball_model(), tmp_path, show_rigid_contact_points=True, vsync=False)
    with pytest.raises(ValueError, match="up_axis='Z'"):
        wp.sim.render.SimRenderer(_ball_model(), tmp_path, up_axis="Z")


def _pendulum_model():
    # A box body hanging from a revolute joint at (0, 1.5, 0), swinging about z; no ground.
    b = wp.sim.ModelBuilder()
    b.ground = False
    body = b.add_body(origin=wp.transform((0.8, 1.5, 0.0), wp.quat_identity()))
    b.add_shape_box(body, hx=0.15, hy=0.15, hz=0.15, density=1000.0)
    b.add_joint_revolute(-1, body, parent_xform=wp.transform((0.0, 1.5, 0.0), wp.quat_identity()),
                         child_xform=wp.transform((-0.8, 0.0, 0.0), wp.quat_identity()), axis=(0.0, 0.0, 1.0))
    return b.finalize(device="cpu")


def _greenest(pixels):
    return max(pixels[i + 1] - max(pixels[i], pixels[i + 2]) for i in range(0, len(pixels), 4))


def test_bodies_are_drawn_at_their_poses_and_joints_on_request(tmp_path):
    model = _pendulum_model()
    states = [model.state(), model.state()]
    integrator = wp.sim.SemiImplicitIntegrator()
    r = wp.sim.render.SimRenderer(model, tmp_path / "frames", screen_width=200, screen_height=150)
    assert r.show_joints is False  # Warp's default
    dt = 1.0 / 60.0
    for frame in range(2):
        r.begin_frame(frame * dt)
        r.render(states[0])
        r.end_frame()
        for _ in range(300):  # 0.3 s: the box swings about 0.4 m down
            integrator.simulate(model, states[0], states[1], 0.001)
            states[0], states[1] = states[1], states[0]
    r.show_joints = True
    r.begin_frame(2 * dt)
    r.render(states[0])
    r.end_frame()
    first, second, with_joints = (_weft.read_png(f)[2] for f in r.save())
    # The box (drawn in the first shape colour, reddish) moved as the body swung down.
    def box_rows(px):
        rows = [i // 4 // 200 for i in range(0, len(px), 4) if px[i] > 150 and px[i + 1] < 110 and px[i + 2] < 90]
        return sum(rows) / len(rows)
    assert box_rows(second) > box_rows(first) + 10.0, "the box fell as the pendulum swung"
    # Joint frames: the y axis is drawn in green, which nothing else in the scene is.
    assert _greenest(second) < 60
    assert _greenest(with_joints) > 100


_WINDOW_SCRIPT = """
import weft as wp, weft.sim
b = wp.sim.ModelBuilder()
b.add_particle(pos=(0.0, 1.0, 0.0), vel=(0.0, 0.0, 0.0), mass=1.0, radius=0.2)
model = b.finalize(device="cpu")
state = model.state()
r = wp.sim.render.SimRendererOpenGL(model, "test window", screen_width=320, screen_height=240)
r.show_particles = True
for i in range(3):
    r.begin_frame(i / 60.0)
    r.render(state)
    r.end_frame()
print("running", r.is_running())
r.close()
print("closed", r.is_running())
"""


def test_sim_renderer_opengl_draws_in_a_window():
    env = dict(os.environ)
    cmd = [sys.executable, "-c", _WINDOW_SCRIPT]
    if not env.get("DISPLAY"):
        if not shutil.which("xvfb-run"):
            pytest.skip("no display and no xvfb-run (scripts/setup.sh installs xvfb)")
        cmd = ["xvfb-run", "-a"] + cmd
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:2] == ["running True", "closed False"]


def test_no_display_suggests_the_headless_renderer():
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    script = ("import weft as wp, weft.sim\nb = wp.sim.ModelBuilder()\nb.add_particle(pos=(0.0, 1.0, 0.0), "
              "vel=(0.0, 0.0, 0.0), mass=1.0)\ntry:\n    wp.sim.render.SimRendererOpenGL(b.finalize(device='cpu'))\n"
              "except RuntimeError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert out.stdout == ("SimRendererOpenGL: no display (DISPLAY is not set): use wp.sim.render.SimRenderer(model, DIR) "
                          "to write PNG frames headless, or run under a virtual display: xvfb-run -a python3 ...\n"), out.stderr
