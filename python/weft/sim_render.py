"""wp.sim.render: drawing a simulation from a script, under Warp 1.9's names.

    renderer = wp.sim.render.SimRendererOpenGL(model, "cloth")       # a window
    renderer = wp.sim.render.SimRenderer(model, "out/frames")        # PNG frames, no display needed
    renderer = wp.sim.render.SimRenderer(model, "out/drop.mp4")      # a video through ffmpeg
    for i in range(frames):
        ...
        renderer.begin_frame(sim_time)
        renderer.render(state)
        renderer.end_frame()
    renderer.save()                                                  # SimRenderer: the files written
                                                                     # (a video is completed here)

Both draw what the C++ viewer draws (viewer/script_renderer.h, docs/viewer.md): particles as lit
spheres coloured by speed, cloth as two-sided lit triangles, springs as lines, static shapes and
rigid bodies' shapes at their poses, the joints' frames as axes (show_joints=True), smoke density
as a translucent volume, and the ground grid, with a shadow from the light above.
SimRendererOpenGL opens a window (left drag orbits, right drag pans, the wheel zooms); SimRenderer
writes path/frame_NNNNN.png at every end_frame, numbered from 0, rendering headless through EGL,
or, when path ends in .mp4, .mov, .mkv or .webm, pipes the frames to ffmpeg at `fps`
(viewer/video_writer.h): save() or close() completes the file, and a renderer dropped before that
leaves none. Warp's show_rigid_contact_points and contact_points_radius, and any other keyword
neither renderer knows, raise TypeError naming them; mesh shapes are not drawn (the model keeps
only their distance fields).
"""

from . import _weft

__all__ = ["SimRendererOpenGL", "SimRenderer"]

_KNOWN = {"scaling", "fps", "up_axis", "screen_width", "screen_height", "show_particles", "show_joints", "draw_grid",
          "color_by"}


class _Renderer:
    def __init__(self, cls, model, path, png_dir, kwargs, video_path=""):
        unknown = sorted(set(kwargs) - _KNOWN)
        if unknown:
            raise TypeError(f"{cls.__name__}() got unexpected keyword argument(s) {', '.join(repr(k) for k in unknown)}"
                            f" (it takes {', '.join(sorted(_KNOWN))})")
        if kwargs.get("up_axis", "Y") not in ("Y", "y", 1):
            raise ValueError(f"{cls.__name__}: up_axis={kwargs['up_axis']!r}: Weft's scenes are y-up; only 'Y' is drawn")
        if float(kwargs.get("scaling", 1.0)) != 1.0:
            raise ValueError(f"{cls.__name__}: scaling={kwargs['scaling']!r}: only 1.0 (the model's metres) is drawn")
        if not hasattr(_weft, "ScriptRenderer"):
            raise RuntimeError("wp.sim.render: this build of Weft has no viewer (GLFW, OpenGL and Dear ImGui were "
                               "not found; scripts/setup.sh installs them)")
        self.model = model
        self.fps = float(kwargs.get("fps", 60))
        if video_path and not _weft.find_ffmpeg():
            raise RuntimeError(f"{cls.__name__}: writing {video_path} needs ffmpeg, which is not on PATH: apt-get install "
                               "ffmpeg, or give a folder to write PNG frames")
        self._cpp = _weft.ScriptRenderer(str(path), int(kwargs.get("screen_width", 1024)),
                                         int(kwargs.get("screen_height", 768)), png_dir, video_path, self.fps)
        self._cpp.show_particles = bool(kwargs.get("show_particles", True))
        self._cpp.show_joints = bool(kwargs.get("show_joints", False))
        self._cpp.draw_grid = bool(kwargs.get("draw_grid", True))
        if "color_by" in kwargs:
            self._cpp.color_by = str(kwargs["color_by"])

    show_particles = property(lambda self: self._cpp.show_particles,
                              lambda self, on: setattr(self._cpp, "show_particles", bool(on)))
    show_springs = property(lambda self: self._cpp.show_springs,
                            lambda self, on: setattr(self._cpp, "show_springs", bool(on)))
    show_joints = property(lambda self: self._cpp.show_joints,
                           lambda self, on: setattr(self._cpp, "show_joints", bool(on)))
    draw_grid = property(lambda self: self._cpp.draw_grid, lambda self, on: setattr(self._cpp, "draw_grid", bool(on)))
    time = property(lambda self: self._cpp.time)

    def begin_frame(self, time):
        """Starts a frame at simulated time `time` (s)."""
        self._cpp.begin_frame(float(time))

    def render(self, state):
        """Draws `state` (a wp.sim.State of this renderer's model) in the current frame."""
        self._cpp.render(self.model._cpp, state._cpp)

    def end_frame(self):
        """Shows the frame (SimRendererOpenGL) or writes it as a PNG file (SimRenderer)."""
        self._cpp.end_frame()

    def is_running(self):
        """False once the window was closed (or close() was called)."""
        return self._cpp.is_running()

    def close(self):
        self._cpp.close()


class SimRendererOpenGL(_Renderer):
    """A window drawing the model's states: Warp's SimRendererOpenGL(model, path, scaling=1.0,
    fps=60, up_axis="Y", screen_width=1024, screen_height=768, show_particles=True, draw_grid=True),
    `path` being the window's title. Without a display it raises RuntimeError suggesting
    SimRenderer (headless) or xvfb-run."""

    def __init__(self, model, path="Weft Sim", **kwargs):
        if hasattr(_weft, "display_available"):
            ok, why = _weft.display_available()
            if not ok:
                raise RuntimeError(f"SimRendererOpenGL: {why}: use wp.sim.render.SimRenderer(model, DIR) to write PNG "
                                   "frames headless, or run under a virtual display: xvfb-run -a python3 ...")
        super().__init__(SimRendererOpenGL, model, path, "", kwargs)


class SimRenderer(_Renderer):
    """Headless PNG frames: path/frame_00000.png, frame_00001.png, ... one per end_frame (the
    directory is created); or, when path ends in .mp4, .mov, .mkv or .webm, a video of those frames
    at `fps` frames per second, encoded by ffmpeg (which must be on PATH; screen_width and
    screen_height must be even). Same keywords as SimRendererOpenGL."""

    def __init__(self, model, path, **kwargs):
        path = str(path)
        if _weft.is_video_path(path):
            super().__init__(SimRenderer, model, path, "", kwargs, video_path=path)
        else:
            super().__init__(SimRenderer, model, path, path, kwargs)

    def save(self):
        """The files written, in order: the PNG frames (each written at its end_frame), or the
        video, completed now (RuntimeError with ffmpeg's status and messages if it failed)."""
        self._cpp.finish()
        return list(self._cpp.written)
