"""wp.ScopedCapture(launch_list=True) (runtime/launch_list.h, issue 20): launches recorded in the
block run as ONE launch of a persistent grid when wp.capture_launch replays them, with the bits of
the same launches run one by one; a wp.sim cloth frame of substeps likewise; and what a list
cannot hold raises on exit, naming it. On sim:h200 (a step per simulated launch of the list's grid) and on
cuda:0 where there is one (many blocks, grid barriers between the launches)."""

import numpy as np
import pytest

import weft as wp
import weft.sim  # noqa: F401

DEVICES = ["sim:h200"] + (["cuda:0"] if wp.is_cuda_available() else [])


@wp.kernel
def list_shift(src: wp.array(dtype=float), dst: wp.array(dtype=float), c: float):
    i = wp.tid()
    n = src.shape[0]
    dst[i] = src[(i + 601) % n] * 0.5 + c


@wp.kernel
def list_grid(a: wp.array2d(dtype=float)):
    i, j = wp.tid()
    a[i, j] = a[i, j] + float(i * 3 + j)


def shifts(x, y, m, device):
    for s in range(4):
        wp.launch(list_shift, dim=x.shape[0], inputs=[x, y, 0.25 * s], device=device)
        wp.launch(list_grid, dim=m.shape, inputs=[m], device=device)
        wp.launch(list_shift, dim=x.shape[0], inputs=[y, x, -1.0], device=device)


def arrays(n, device):
    x = wp.array(np.linspace(0.0, 1.0, n, dtype=np.float32), dtype=float, device=device)
    return x, wp.zeros(n, dtype=float, device=device), wp.zeros((13, 7), dtype=float, device=device)


@pytest.mark.parametrize("device", DEVICES)
def test_recorded_launches_replay_as_one_launch_with_the_same_bits(device):
    n = 700 if device.startswith("sim") else 1 << 20
    x, y, m = arrays(n, device)
    with wp.ScopedCapture(device, launch_list=True) as capture:
        shifts(x, y, m, device)
    assert capture.graph.steps == 12 and capture.graph.cases == 6  # list_shift with 4 values of c, then 1 each
    assert not m.numpy().any(), "recording runs nothing"
    ex, ey, em = arrays(n, device)
    for _ in range(2):
        wp.capture_launch(capture.graph)
        shifts(ex, ey, em, device)
    assert np.array_equal(x.numpy().view(np.uint32), ex.numpy().view(np.uint32))
    assert np.array_equal(y.numpy().view(np.uint32), ey.numpy().view(np.uint32))
    assert m.numpy()[2, 5] == 8 * (2 * 3 + 5)


@pytest.mark.parametrize("device", DEVICES)
def test_a_sim_cloth_frame_replays_as_one_launch(device):
    def cloth():
        b = wp.sim.ModelBuilder(gravity=-9.81)
        b.add_cloth_grid(pos=(0.0, 1.0, 0.0), rot=wp.quat_identity(), vel=(0.0, 0.0, 0.0), dim_x=7, dim_y=7, cell_x=0.05,
                         cell_y=0.05, mass=0.1, fix_left=True)
        model = b.finalize(device=device)
        return model, model.state(), model.state()

    integ = wp.sim.SemiImplicitIntegrator()
    dt = 1.0 / 960.0
    model, a, b = cloth()
    integ.simulate(model, a, b, dt)  # compiles the kernels; b is where the frames start
    with wp.ScopedCapture(device, launch_list=True) as capture:
        for _ in range(4):
            integ.simulate(model, b, a, dt)
            integ.simulate(model, a, b, dt)
    assert capture.graph.steps > 8
    e_model, ea, eb = cloth()
    integ.simulate(e_model, ea, eb, dt)
    for _ in range(3):
        wp.capture_launch(capture.graph)
        for _ in range(4):
            integ.simulate(e_model, eb, ea, dt)
            integ.simulate(e_model, ea, eb, dt)
    assert np.array_equal(b.particle_q.numpy().view(np.uint32), eb.particle_q.numpy().view(np.uint32))
    assert np.array_equal(b.particle_qd.numpy().view(np.uint32), eb.particle_qd.numpy().view(np.uint32))


def test_what_a_list_cannot_hold_raises_on_exit_naming_it():
    x, y, m = arrays(64, "sim:h200")
    with pytest.raises(RuntimeError, match=r"wp.ScopedCapture\(launch_list=True\): the work does what a launch list "
                                           r"cannot hold: zero\(\) of "):
        with wp.ScopedCapture("sim:h200", launch_list=True):
            shifts(x, y, m, "sim:h200")
            y.zero_()
    assert x.numpy()[0] == 0.0 and not m.numpy().any(), "nothing of the block ran"
    with pytest.raises(RuntimeError, match="wp.ScopedCapture\\(launch_list=True\\): the work launches nothing"):
        with wp.ScopedCapture("sim:h200", launch_list=True):
            pass
    with pytest.raises(ValueError, match="takes no stream"):
        wp.ScopedCapture("sim:h200", stream=object(), launch_list=True)
    if wp.is_cpu_available():
        with pytest.raises(RuntimeError, match="cannot record a launch list: cpu runs no launch lists"):
            with wp.ScopedCapture("cpu", launch_list=True):
                pass
    # An error in the block is the one raised, and the recording ends with it.
    with pytest.raises(ZeroDivisionError):
        with wp.ScopedCapture("sim:h200", launch_list=True):
            wp.launch(list_grid, dim=m.shape, inputs=[m], device="sim:h200")
            1 / 0
    assert not m.numpy().any()
    # After a failed recording, launches run again.
    wp.launch(list_grid, dim=m.shape, inputs=[m], device="sim:h200")
    assert m.numpy()[1, 1] == 4.0
