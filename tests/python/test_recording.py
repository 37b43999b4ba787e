"""python/weft/recording.py: the arrays of recorded launches and copies reach every open wp.Tape,
each once, and nothing is kept while no tape is open."""
import numpy as np

import weft as wp
from weft import recording


def test_open_tapes_keep_each_array_once():
    a = wp.zeros(2, dtype=float, requires_grad=True)
    b = wp.zeros(2, dtype=float, requires_grad=True)
    recording.note_arrays([a])  # no tape open: kept nowhere
    with wp.Tape() as outer:
        with wp.Tape() as inner:
            recording.note_arrays([a, b, a])
            assert recording.open_tapes == [outer, inner]
    assert recording.open_tapes == []
    assert [id(x) for x in outer.gradients] == [id(a), id(b)]
    assert [id(x) for x in inner.gradients] == [id(a), id(b)]


def test_copy_is_recorded():
    src = wp.array(np.arange(3, dtype=np.float32), requires_grad=True)
    dst = wp.zeros(3, dtype=float, requires_grad=True)
    with wp.Tape() as tape:
        wp.copy(dst, src)
    assert set(map(id, tape.gradients)) == {id(src), id(dst)}
