"""The Python side of tape recording: which wp.Tape objects are open, and the arrays that the
launches and copies they record used.

The C++ runtime records the launches themselves (weft/tape/tape.h). What it cannot do is answer
tape.gradients by Python array object, nor keep those objects alive as Warp does: for that,
wp.launch and wp.copy hand the wp.array objects they pass to every open tape through
note_arrays(), and each wp.Tape adds itself to open_tapes on __enter__ and leaves on __exit__.

This module imports nothing of weft, so that arrays, launch and tape can all use it without an
import circle (arrays.copy records, and tape.py needs arrays).
"""

open_tapes = []  # Python tapes open, innermost last


def note_structs(instances):
    """Every open tape keeps each of `instances` (wp.struct instances a launch passed), so that
    tape.gradients can answer for them as Warp's does."""
    for t in open_tapes:
        for s in instances:
            t._seen_structs.setdefault(id(s), s)


def note_arrays(arrays):
    """Every open tape keeps each of `arrays` (wp.array objects; each kept once per tape)."""
    if not open_tapes:
        return
    arrays = list(arrays)
    for t in open_tapes:
        for a in arrays:
            t._seen.setdefault(id(a), a)


def note_objects(objects):
    """For wp.sim's simulate(): every open tape keeps each of `objects` (Model, State, Control) and
    the wp.arrays of their array attributes. An object is looked at once per tape: a rollout passes
    the same Model to every step, and a State to two, and reading every attribute of each at every
    step was most of the step's Python time (bench/results/rollout-python-2026-12-06.md)."""
    if not open_tapes:
        return
    for obj in objects:
        if all(id(obj) in t._seen_objects for t in open_tapes):
            continue
        arrays = obj._array_attributes()
        for t in open_tapes:
            if id(obj) in t._seen_objects:
                continue
            t._seen_objects[id(obj)] = obj
            for a in arrays:
                t._seen.setdefault(id(a), a)
