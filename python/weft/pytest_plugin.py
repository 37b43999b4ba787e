"""pytest plugin of weft: the `gradient_golden` fixture and the --weft-update-goldens flag
(weft.testing, docs/gradient-testing.md). Enable it in a conftest.py:

    pytest_plugins = ["weft.pytest_plugin"]

    def test_springs(gradient_golden):
        gradient_golden.check(simulate, {"stiffness": k})   # compares with test_x.goldens/test_springs.npz

`pytest --weft-update-goldens` writes the goldens of the tests it runs (and says what changed);
without it, a missing golden is a failure that says how to create it.
"""

import pytest

from .testing import GradientGolden


def pytest_addoption(parser):
    parser.addoption("--weft-update-goldens", action="store_true", default=False,
                     help="write the gradient goldens of the tests that use the gradient_golden fixture (weft.testing)")


@pytest.fixture
def gradient_golden(request):
    """Gradient goldens kept next to the test file (weft.testing.GradientGolden)."""
    return GradientGolden(str(request.fspath), request.node.name, request.config.getoption("--weft-update-goldens"))
