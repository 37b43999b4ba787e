"""Gradient regression tests of the examples (docs/gradient-testing.md): the gradient_golden
fixture of weft.pytest_plugin, and examples/ on sys.path for the simulations they test."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

pytest_plugins = ["weft.pytest_plugin"]
