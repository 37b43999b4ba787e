"""wp.Tape and wp.checkpoint: reverse-mode differentiation of a sequence of launches.

    with wp.Tape() as tape:
        wp.launch(step, dim=n, inputs=[x, v], outputs=[x1])
        wp.launch(loss_kernel, dim=n, inputs=[x1], outputs=[loss])
    tape.backward(loss)            # x.grad, v.grad now hold dloss/dx, dloss/dv
    tape.zero()

The recording happens in the C++ runtime (weft/tape/tape.h): every launch and wp.copy made on
this thread while the tape is active, and every zero_/fill_/assign of an array. backward() refuses
(RuntimeError naming the array and both launches) when an array that one recorded launch read was
later overwritten by another, because the first launch's adjoint would then see the wrong values;
NVIDIA Warp returns wrong gradients in that case. The same holds for writes the tape did not
record (an assign, zero_ or launch outside the `with` block, after the array was read by a
recorded launch; found through per-array write versions), and backward(loss) refuses a loss no
recorded launch wrote. Stores through numpy views of host memory cannot be seen. See
docs/autodiff.md.
"""

import copy as _copy
import inspect as _inspect

from . import _weft
from . import arrays as _arrays
from . import recording as _recording


class Tape:
    """Records launches and array copies; backward() runs their adjoints in reverse order."""

    def __init__(self):
        self._tape = _weft.Tape()
        self._seen = {}  # id -> wp.array used by a recorded launch or copy (kept alive, as Warp does; recording.py)
        self._seen_structs = {}  # id -> wp.struct instance passed to a recorded launch
        self._seen_objects = {}  # id -> wp.sim Model/State/Control a recorded step used (recording.note_objects)

    def __enter__(self):
        self._tape.activate()
        _recording.open_tapes.append(self)
        return self

    def __exit__(self, *exc):
        self._tape.deactivate()
        if self in _recording.open_tapes:
            _recording.open_tapes.remove(self)
        return False

    def backward(self, loss=None, grads=None):
        """Seeds loss.grad with 1 (loss: a one-element float array with requires_grad=True) and/or
        each array's gradient with grads[array], then runs the adjoints of the recorded launches
        in reverse order. With neither (as in Warp), the gradients already in the arrays (set by
        hand: `y.grad.fill_(1.0)`, `y.grad = g`) are the seeds. Gradients accumulate: call zero()
        between backward passes."""
        if loss is not None and not isinstance(loss, _arrays.array):
            raise RuntimeError(f"tape.backward: the loss must be a wp.array, got {type(loss).__name__}")
        pairs = []
        for a, g in (grads or {}).items():
            if not isinstance(g, _arrays.array):
                g = _arrays.array(g, dtype=a.dtype, device=a.device)
            pairs.append((a._handle(), g._handle()))
        if loss is None:
            self._tape.backward_grads(pairs)
        elif not pairs:
            self._tape.backward(loss._handle())
        else:  # both, as Warp allows: the seeds, and loss.grad = 1
            self._tape.backward_loss_and_grads(loss._handle(), pairs)

    def zero(self):
        """Zeroes the gradient of every array the recorded launches touched."""
        self._tape.zero()
        for a in self._seen.values():
            if a.requires_grad:
                a.zero_grad()

    def reset(self):
        """Forgets the recording (gradients are zeroed first). As in Warp, tape.gradients keeps
        its entries (zeroed) until the tape is dropped."""
        self.zero()
        self._tape.reset()

    @property
    def gradients(self):
        """{array: gradient array} for every array with requires_grad that a recorded launch used,
        and {struct instance: its adjoint} for every struct instance passed to a recorded launch:
        as in Warp, an instance of the same struct whose array fields are the gradient arrays (None
        for arrays without requires_grad) and whose other fields hold the instance's own values."""
        out = {a: a.grad for a in self._seen.values() if a.requires_grad}
        for s in self._seen_structs.values():
            out[s] = _struct_adjoint(s)
        return out

    @property
    def launches(self):
        """A description of each record, oldest first."""
        return self._tape.records()

    def record_func(self, backward, arrays, writes=()):
        """Records a step whose backward is the Python callable `backward()`. `arrays`: what the
        step read (their gradients are what backward() computes); `writes`: what it wrote."""
        name = getattr(backward, "__name__", "func")
        self._tape.record_func(name, backward, [a._handle() for a in arrays], [a._handle() for a in writes])

    def check(self):
        """'' when backward() can run, else the reason it would refuse."""
        return self._tape.check_overwrites()

    def visualize(self, filename=None, simplify_graph=True, hide_readonly_arrays=False, array_labels=None,
                  choose_longest_node_name=True, ignore_graph_scopes=False, track_inputs=None, track_outputs=None,
                  track_input_names=None, track_output_names=None, graph_direction="LR"):
        """The recording as a Graphviz graph (launches as boxes, arrays as ellipses, conflicting
        overwrites in red); written to `filename` when given. Returns the DOT text. Warp's layout
        keywords are accepted at their defaults; others raise TypeError naming them."""
        given = dict(simplify_graph=(simplify_graph, True), hide_readonly_arrays=(hide_readonly_arrays, False),
                     array_labels=(array_labels, None), choose_longest_node_name=(choose_longest_node_name, True),
                     ignore_graph_scopes=(ignore_graph_scopes, False), track_inputs=(track_inputs, None),
                     track_outputs=(track_outputs, None), track_input_names=(track_input_names, None),
                     track_output_names=(track_output_names, None), graph_direction=(graph_direction, "LR"))
        for name, (value, default) in given.items():
            if value is not default and value != default:
                raise TypeError(f"Tape.visualize(): {name}={value!r} is not supported (Weft draws every record and array)")
        if filename is not None:
            self._tape.visualize(str(filename))
        return self._tape.dot()


def _struct_adjoint(instance):
    adj = instance._struct()
    for name, ft, _ in instance._weft_type.fields:
        value = getattr(instance, name)
        if ft.kind == "array":
            value = value.grad if value is not None and value.requires_grad else None
        setattr(adj, name, value)
    return adj


def _state_arrays(state, what):
    """(list of _weft.Array handles, rebuild(handles) -> a state like `state`)."""
    if isinstance(state, (list, tuple)):
        for i, a in enumerate(state):
            if not isinstance(a, _arrays.array):
                raise RuntimeError(f"checkpoint: {what}[{i}] is a {type(a).__name__}, not a wp.array")
        dtypes = [a.dtype for a in state]
        kind = type(state)

        def rebuild(handles):
            return kind(_arrays.array._wrap(h, d) for h, d in zip(handles, dtypes))

        return [a._handle() for a in state], rebuild
    cpp = getattr(state, "_cpp", None)
    if isinstance(cpp, _weft.State):
        # A wp.sim.State: what a step carries over is every array of it but the per-step outputs
        # and grid scratch (particle_f, body_f, grid buckets): particles' and bodies' positions
        # and velocities, MPM deformation (mpm_F, mpm_C, mpm_Jp), smoke fields. rebuild() gives
        # each State its own zeroed scratch, which a step writes, so that no two steps share it.
        scratch_names = ("particle_f", "body_f", "grid_bucket_count", "grid_bucket_particles")
        arrays = sorted(n for n in dir(cpp) if not n.startswith("_") and isinstance(getattr(cpp, n), _weft.Array))
        names = [n for n in arrays if n not in scratch_names and getattr(cpp, n).size > 0]
        if not names:
            raise RuntimeError(f"checkpoint: {what} is a wp.sim.State with nothing to carry (no particles, bodies or grids)")
        scratch = [n for n in scratch_names if getattr(cpp, n).size > 0]
        kind = type(state)

        def rebuild_state(handles):
            c = _copy.copy(cpp)
            for n, h in zip(names, handles):
                setattr(c, n, h)
            for n in scratch:
                a = getattr(cpp, n)
                setattr(c, n, _weft.Array.zeros(a.dtype, list(a.shape), a.device, False))
            return kind(c)

        return [getattr(cpp, n) for n in names], rebuild_state
    names = sorted(k for k, v in vars(state).items() if isinstance(v, _arrays.array))
    if not names:
        raise RuntimeError(f"checkpoint: {what} holds no wp.array (give a list of arrays or an object with array attributes)")
    dtypes = [getattr(state, n).dtype for n in names]

    def rebuild(handles):
        s = _copy.copy(state)
        for n, h, d in zip(names, handles, dtypes):
            setattr(s, n, _arrays.array._wrap(h, d))
        return s

    return [getattr(state, n)._handle() for n in names], rebuild


def checkpoint(step_fn, n_steps, state_in, state_out, segment=None):
    """Runs `n_steps` calls of step_fn(state_in, state_out) (or step_fn(state_in, state_out, k)),
    from `state_in` into `state_out`, keeping only about sqrt(n_steps) states alive.

    States are lists/tuples of wp.arrays, or objects whose wp.array attributes form the state
    (such as a simulation State). Under a Tape, the rollout is one record: backward() recomputes
    each segment of `segment` steps (default ceil(sqrt(n_steps))) from a saved state and
    differentiates it, so gradients equal those of recording every step, at the cost of one
    more forward pass. Returns (segment, checkpoints saved)."""
    ins, rebuild = _state_arrays(state_in, "state_in")
    outs, _ = _state_arrays(state_out, "state_out")
    try:
        params = len(_inspect.signature(step_fn).parameters)
    except (TypeError, ValueError):
        params = 2

    def step(k, a, b):
        if params >= 3:
            step_fn(rebuild(a), rebuild(b), k)
        else:
            step_fn(rebuild(a), rebuild(b))

    return _weft.checkpoint(step, int(n_steps), ins, outs, int(segment or 0))
