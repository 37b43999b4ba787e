"""A gradient regression test of a user's simulation, as docs/gradient-testing.md describes it:
the spring cage of examples/sim_spring_cage.py (a particle held by four springs) differentiated
with respect to the springs' rest lengths, checked against finite differences
and against the golden in test_spring_cage_gradients.goldens/ (written once with
`pytest --weft-update-goldens`). CI runs it (the ctest gradcheck_example_python).

    PYTHONPATH=build/python /usr/bin/python3 -m pytest examples/gradient_regression
"""
import sim_spring_cage


def test_spring_cage(gradient_golden):
    sim = sim_spring_cage.SpringCage(device="cpu", steps=60)

    def loss(rest_length):  # the model's own array: forward() reads it
        sim.forward()
        return sim.loss

    gradient_golden.check(loss, {"spring_rest_length": sim.model.spring_rest_length})
