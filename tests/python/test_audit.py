"""wp.audit from Python: the same findings as `weft audit`, shapes and int arguments taken from
the launch's inputs, and the automatic audit of debug-mode launches."""
import weft as wp


@wp.kernel(block_dim=64)
def neighbour(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    s = wp.shared_array(64, dtype=float)
    t = wp.thread_idx()
    i = wp.tid()
    s[t] = a[i]
    out[i] = s[(t + 1) % 64]  # reads a neighbour's slot with no barrier in between: a race


@wp.kernel
def shifted(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = a[i + 1]


def test_audit_finds_a_shared_race_with_its_witness():
    a = wp.zeros(128, dtype=float)
    out = wp.zeros(128, dtype=float)
    findings = wp.audit(neighbour, dim=128, inputs=[a], outputs=[out])
    races = [f for f in findings if f.check == "shared-race"]
    assert races, [repr(f) for f in findings]
    f = races[0]
    assert f.severity == "error" and f.kernel == "neighbour" and f.path.endswith("test_audit.py")
    assert "shared-race" in str(f) and "^" in str(f)
    assert f.notes


def test_audit_uses_the_inputs_shapes_for_bounds():
    a = wp.zeros(100, dtype=float)
    out = wp.zeros(100, dtype=float)
    bounds = [f for f in wp.audit(shifted, dim=100, inputs=[a], outputs=[out]) if f.check == "bounds"]
    assert bounds and bounds[0].severity in ("warning", "error")
    assert "a" in bounds[0].message
    # With a grid one smaller, every index is in range.
    assert not [f for f in wp.audit(shifted, dim=99, inputs=[a], outputs=[out]) if f.check == "bounds"]


def test_debug_launches_are_audited_once(capsys):
    a = wp.zeros(128, dtype=float)
    out = wp.zeros(128, dtype=float)
    wp.config.mode = "debug"
    wp.launch(neighbour, dim=128, inputs=[a], outputs=[out])
    first = capsys.readouterr().err
    assert "shared-race" in first
    wp.launch(neighbour, dim=128, inputs=[a], outputs=[out])
    assert "shared-race" not in capsys.readouterr().err
