"""pytest setup for the Python API tests: the tests import `weft` from the build tree
(PYTHONPATH=build/python) and run on the CPU device; the test directory is put on sys.path so
that test files can import helpers_mod as a module of their own."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import weft as wp  # noqa: E402

pytest_plugins = ["weft.pytest_plugin"]  # the gradient_golden fixture (test_testing.py)


@pytest.fixture(autouse=True)
def release_mode():
    """Each test starts in release mode and leaves it so (some tests switch to debug)."""
    wp.config.mode = "release"
    yield
    wp.config.mode = "release"


@pytest.fixture
def device():
    return "cpu"
