"""CUDA streams, events and graph capture, as in Warp: wp.Stream, wp.Event, wp.ScopedStream,
wp.ScopedCapture / wp.capture_launch, wp.synchronize_stream, wp.synchronize_event.

Each thread has a current stream per cuda device (the device's own default stream unless a
ScopedStream or a capture set another); launches, allocations and copies on that device go to it,
in order. Work on two streams is ordered only by events:

    s = wp.Stream("cuda:0")
    with wp.ScopedStream(s):
        wp.launch(k1, dim=n, inputs=[a])        # queued on s
    wp.get_stream("cuda:0").wait_stream(s)      # the default stream waits for k1, the host does not

Capture records launches instead of running them; the graph replays them with one driver call:

    with wp.ScopedCapture("cuda:0") as capture:
        for _ in range(100):
            wp.launch(step, dim=n, inputs=[x, v, dt])
    wp.capture_launch(capture.graph)            # 100 launches

Launch each kernel once before capturing (module loading cannot be captured), allocate before
capturing, and capture without debug mode. What cannot be captured raises RuntimeError naming the
operation (runtime/capture_check.h). A Tape's forward launches and backward() capture together
(docs/autodiff.md, "Capturing a backward pass"). On any device, wp.ScopedCaptureCheck(device)
applies the same rules to work that runs eagerly, so capture-safety can be tested without a GPU.
The C++ API is runtime/cuda/stream.h.
"""

from . import _weft
from . import context as _context


def _cuda_device(device):
    d = _context.get_device(device)
    if not d.is_cuda:
        raise RuntimeError(f"streams and events need a cuda device, not '{d.alias}'")
    return d


class Stream:
    """A CUDA stream: an ordered queue of work on one cuda device (Warp's wp.Stream)."""

    def __init__(self, device=None, _handle=None):
        if _handle is not None:
            self._s = _handle
        else:
            self._s = _weft.Stream(_cuda_device(device).alias)
        self.device = _context.get_device(self._s.device)

    @property
    def cuda_stream(self):
        """The CUstream as an integer (what other libraries take, e.g. torch.cuda.ExternalStream)."""
        return self._s.handle

    @property
    def is_complete(self):
        return self._s.done()

    def synchronize(self):
        """Blocks the host until all work queued on the stream so far has run."""
        self._s.synchronize()

    def record_event(self, event=None):
        """Records `event` (or a new Event) at the current end of the queue and returns it."""
        if event is None:
            event = Event(self.device)
        event.record(self)
        return event

    def wait_event(self, event):
        """Work queued here later waits for `event` (the host does not wait)."""
        self._s.wait(event._e)

    def wait_stream(self, other):
        """Work queued here later waits for everything queued on `other` so far."""
        self._s.wait(other._s.record())

    def __eq__(self, other):
        return isinstance(other, Stream) and self.cuda_stream == other.cuda_stream

    def __hash__(self):
        return hash(self.cuda_stream)

    def __repr__(self):
        return f"wp.Stream({self.device.alias}, handle=0x{self.cuda_stream:x})"


class Event:
    """A marker in a stream's queue (Warp's wp.Event). enable_timing: usable by get_event_elapsed_time."""

    def __init__(self, device=None, enable_timing=False):
        self.device = _cuda_device(device)
        self._e = _weft.Event(self.device.alias, bool(enable_timing))

    def record(self, stream=None):
        self._e.record((stream or get_stream(self.device))._s)

    @property
    def is_complete(self):
        return self._e.done()

    def synchronize(self):
        self._e.synchronize()


def get_stream(device=None):
    """This thread's current stream of a cuda device."""
    d = _cuda_device(device)
    return Stream(_handle=_weft.Stream.current(d.alias))


def synchronize_stream(stream):
    """Blocks the host until the work queued on `stream` (a wp.Stream, or a device: its current stream) has run."""
    if not isinstance(stream, Stream):
        stream = get_stream(stream)
    stream.synchronize()


def synchronize_event(event):
    event.synchronize()


def get_event_elapsed_time(start, end, synchronize=True):
    """Milliseconds between two events recorded with enable_timing=True."""
    if synchronize:
        end.synchronize()
    return start._e.elapsed_ms(end._e)


class ScopedStream:
    """with wp.ScopedStream(s): ... makes `s` the current stream of its device on this thread,
    and its device the default device; both are restored on exit. Nests."""

    def __init__(self, stream, sync_enter=False, sync_exit=False):
        self.stream = stream
        self.sync_enter = sync_enter
        self.sync_exit = sync_exit

    def __enter__(self):
        if self.stream is None:
            return None
        if self.sync_enter:
            self.stream.wait_stream(get_stream(self.stream.device))
        self._device = _context.ScopedDevice(self.stream.device)
        self._device.__enter__()
        self._token = _weft.set_current_stream(self.stream._s)
        return self.stream

    def __exit__(self, *exc):
        if self.stream is None:
            return
        previous_token = self._token
        del self._token
        del previous_token  # releasing the token restores the previous current stream
        self._device.__exit__(*exc)
        if self.sync_exit:
            get_stream(self.stream.device).wait_stream(self.stream)


class Graph:
    """A captured sequence of launches (a CUDA graph), replayed by wp.capture_launch."""

    def __init__(self, handle):
        self._g = handle
        self.device = _context.get_device(handle.device)

    @property
    def node_count(self):
        return self._g.node_count


class ScopedCapture:
    """with wp.ScopedCapture(device) as capture: ... records the launches made in the block on
    `stream` (default: a new stream of the device) instead of running them; capture.graph then
    replays them with wp.capture_launch. See the module docstring for what cannot be captured.

    launch_list=True (a Weft extension): the block's launches become ONE launch of a persistent
    grid, with a grid barrier between them (runtime/launch_list.h), on cuda and sim devices. For
    short launches back to back, where each node of a CUDA graph still costs microseconds. The
    block may only launch kernels without shared memory, barriers or warp collectives: a
    zero_(), fill_(), copy or backward launch in it raises RuntimeError on exit, naming it."""

    def __init__(self, device=None, stream=None, force_module_load=None, launch_list=False):
        self.launch_list = bool(launch_list)
        if self.launch_list:
            if stream is not None:
                raise ValueError("wp.ScopedCapture(launch_list=True) takes no stream: the list runs on the stream "
                                 "current when wp.capture_launch runs it")
            self.device = _context.get_device(device)
            self.stream = None
        elif stream is not None:
            self.stream = stream
            self.device = stream.device
        else:
            self.device = _cuda_device(device)
            self.stream = Stream(self.device)
        self.graph = None

    def __enter__(self):
        if self.launch_list:
            self._device = _context.ScopedDevice(self.device)
            self._device.__enter__()
            try:
                self._recording = _weft.LaunchListRecording(self.device.alias)
            except BaseException:
                self._device.__exit__(None, None, None)
                raise
            return self
        # Work queued before the capture on the device's current stream comes first.
        self.stream.wait_stream(get_stream(self.device))
        self._device = _context.ScopedDevice(self.device)
        self._device.__enter__()
        _weft.begin_capture(self.stream._s)
        return self

    def __exit__(self, exc_type, exc, tb):
        if self.launch_list:
            recording, self._recording = self._recording, None
            try:
                # After an error in the block the recording is dropped (destroying it ends it):
                # nothing is compiled, and the block's own error is the one raised.
                listed = recording.finish() if exc_type is None else None
            finally:
                del recording
                self._device.__exit__(exc_type, exc, tb)
            if listed is not None:
                if not listed.valid:
                    raise RuntimeError("wp.ScopedCapture(launch_list=True): " + listed.why_not)
                self.graph = LaunchListGraph(listed, self.device)
            return
        try:
            graph = _weft.end_capture(self.stream._s)
        finally:
            self._device.__exit__(exc_type, exc, tb)
        if exc_type is None:
            self.graph = Graph(graph)


class LaunchListGraph:
    """The launches of a wp.ScopedCapture(launch_list=True) block, replayed by wp.capture_launch
    as one launch."""

    def __init__(self, handle, device):
        self._l = handle
        self.device = device

    @property
    def steps(self):
        return self._l.steps

    @property
    def cases(self):
        return self._l.cases

    @property
    def blocks(self):
        return self._l.blocks


class ScopedCaptureCheck:
    """with wp.ScopedCaptureCheck(device): ... runs the block eagerly under the rules of a CUDA graph
    capture (any device: cpu and sim too): a copy to or from the host, a kernel's first launch on
    the device, a debug-mode launch raise RuntimeError naming the operation, and an array allocated
    in the block that is still alive at its end raises on exit. Deferred status checks registered
    in the block (a Tape's backward pass) run at the next synchronising point, as after a replay."""

    def __init__(self, device=None):
        self.device = _context.get_device(device)
        self._check = None

    def __enter__(self):
        self._check = _weft.CaptureCheck(self.device.alias)
        return self

    def __exit__(self, exc_type, exc, tb):
        check, self._check = self._check, None
        if exc_type is None:
            check.end()
        else:
            try:
                check.end()
            except RuntimeError:
                pass  # the block's own error is the one to report
        return False


def capture_launch(graph, stream=None):
    """Replays a captured graph on `stream` (default: the current stream of the graph's device)."""
    if isinstance(graph, LaunchListGraph):
        if stream is None:
            graph._l.run()
        else:
            with ScopedStream(stream):
                graph._l.run()
        return
    graph._g.launch((stream or get_stream(graph.device))._s)
