"""Devices, the default device and process-wide settings (wp.init, wp.config, wp.get_device ...).

Devices are named as the runtime names them: "cpu", "cuda:N", "sim:ARCH". A `Device` object
compares equal to its name, so `a.device == "cpu"` reads naturally. The default device follows
Warp: the first CUDA device when one is available, else the CPU; `wp.set_device` and
`wp.ScopedDevice` change it.

`wp.config` forwards to the runtime's Config (runtime/config.h), so a setting made here is the
one every launch reads: `mode = "debug"` bounds-checks array accesses, `verify_fp` checks results
for NaN/Inf after each launch, `num_threads` sizes the CPU device's worker pool.
"""

from . import _weft


class Device:
    """A device: cpu, cuda:N or sim:ARCH."""

    def __init__(self, alias):
        self.alias = _weft.normalize_device(str(alias))

    @property
    def is_cpu(self):
        return self.alias == "cpu"

    @property
    def is_cuda(self):
        return self.alias.startswith("cuda:")

    @property
    def is_sim(self):
        return self.alias.startswith("sim:")

    @property
    def ordinal(self):
        return int(self.alias.split(":")[1]) if self.is_cuda else -1

    @property
    def is_host_memory(self):
        """cpu and sim arrays live in host memory (numpy() views them without a copy)."""
        return not self.is_cuda

    def __eq__(self, other):
        if isinstance(other, Device):
            return self.alias == other.alias
        if isinstance(other, str):
            try:
                return self.alias == _weft.normalize_device(other)
            except RuntimeError:
                return False
        return NotImplemented

    def __hash__(self):
        return hash(self.alias)

    def __str__(self):
        return self.alias

    def __repr__(self):
        return f'"{self.alias}"'


_devices = {}
_default_device = None


def get_device(ident=None):
    """The device named by `ident` (a Device, a string), or the default device when None."""
    if ident is None:
        global _default_device
        if _default_device is None:
            _default_device = get_device("cuda:0" if is_cuda_available() else "cpu")
        return _default_device
    if isinstance(ident, Device):
        return ident
    name = _weft.normalize_device(str(ident))
    if name not in _devices:
        _devices[name] = Device(name)
    return _devices[name]


def set_device(ident):
    global _default_device
    _default_device = get_device(ident)


class ScopedDevice:
    """with wp.ScopedDevice("cpu"): ... makes `ident` the default device inside the block."""

    def __init__(self, ident):
        self.device = get_device(ident)

    def __enter__(self):
        global _default_device
        self._saved = _default_device
        _default_device = self.device
        return self.device

    def __exit__(self, *exc):
        global _default_device
        _default_device = self._saved


def is_cuda_available():
    return _weft.device_available("cuda:0")


def is_cpu_available():
    return _weft.device_available("cpu")


def get_cuda_device_count():
    n = 0
    while n < 64 and _weft.device_available(f"cuda:{n}"):
        n += 1
    return n


def get_cuda_devices():
    return [get_device(f"cuda:{i}") for i in range(get_cuda_device_count())]


def get_devices():
    """Every device usable here: cpu, cuda:0..N-1, and the simulator when it is part of the build."""
    out = []
    if is_cpu_available():
        out.append(get_device("cpu"))
    out.extend(get_cuda_devices())
    if _weft.device_available("sim:h200"):
        out.append(get_device("sim:h200"))
    return out


def synchronize(device=None):
    """Waits until the work of every device (or of `device`) has finished."""
    devices = [get_device(device)] if device is not None else get_devices()
    for d in devices:
        _weft.synchronize(d.alias)


def synchronize_device(device=None):
    _weft.synchronize(get_device(device).alias)


_initialized = False


def init():
    """Initialises the runtime (idempotent). Devices are brought up lazily on first use."""
    global _initialized
    _initialized = True


class _Config:
    """wp.config: settings read by every launch (forwarded to the C++ runtime's Config)."""

    verbose = False
    quiet = False

    @property
    def mode(self):
        return "debug" if _weft.config().debug else "release"

    @mode.setter
    def mode(self, value):
        if value not in ("debug", "release"):
            raise ValueError(f"wp.config.mode must be 'debug' or 'release', got {value!r}")
        _weft.config().debug = value == "debug"

    @property
    def verify_fp(self):
        return _weft.config().verify_finite

    @verify_fp.setter
    def verify_fp(self, value):
        _weft.config().verify_finite = bool(value)

    @property
    def num_threads(self):
        return _weft.config().num_threads

    @num_threads.setter
    def num_threads(self, value):
        _weft.config().num_threads = int(value)
        _weft.set_cpu_threads(int(value))

    def __repr__(self):
        return f"wp.config(mode={self.mode!r}, verify_fp={self.verify_fp}, num_threads={self.num_threads})"


config = _Config()
