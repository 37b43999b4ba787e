"""The layer order of docs/architecture.md, checked on the tree: no C++ file includes a file of a
layer above its own, and the Python package has no import circle.

    support < gpusim < compiler < runtime < tape < kernels < engine < viewer < python < apps

tests/, bench/ and fuzz/ may include anything. Besides the order, the include-level nevers:
engine/ includes nothing of compiler/ (it knows no compiler internals), and no folder but
viewer/ includes GL, GLFW or Dear ImGui headers. Each failure names file:line and the include.

Run by CTest (layers_test) or directly: /usr/bin/python3 -m pytest -q tests/layers_test.py
"""

import ast
import os
import re
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Lowest first. kernels/ holds only kernel-language Python (no includes); it sits below engine/,
# which embeds and launches it (docs/architecture.md says why this differs from ARCHITECTURE.md).
LAYERS = ["support", "gpusim", "compiler", "runtime", "tape", "kernels", "engine", "viewer", "python", "apps"]
FREE = {"tests", "bench", "fuzz"}  # may include anything
CPP_SUFFIXES = (".h", ".hpp", ".cpp", ".cc", ".cu", ".cuh", ".inc", ".def")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
GL_HEADER = re.compile(r"^(GL|GLFW|imgui|backends/imgui)")


def tracked_files(root):
    """The files of the tree: git's list where `root` is a checkout, else a walk."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard"], capture_output=True, text=True, check=True).stdout
        files = out.split()
        if files:
            return files
    except (OSError, subprocess.CalledProcessError):
        pass
    found = []
    for d, dirs, names in os.walk(root):
        dirs[:] = [x for x in dirs if not x.startswith((".", "build"))]
        found += [os.path.relpath(os.path.join(d, n), root) for n in names]
    return found


def top(path):
    return path.replace(os.sep, "/").split("/", 1)[0]


def resolve(root, includer, name):
    """The tree path an #include "name" in `includer` refers to: next to the includer first (as the
    compiler looks), then from the root (every target has the root on its include path)."""
    beside = os.path.normpath(os.path.join(os.path.dirname(includer), name))
    if os.path.exists(os.path.join(root, beside)):
        return beside.replace(os.sep, "/")
    return os.path.normpath(name).replace(os.sep, "/")


def include_violations(root):
    """Every include of the tree that breaks the layer order or a never, as 'file:line: sentence'."""
    problems = []
    for f in sorted(set(tracked_files(root))):
        if not f.endswith(CPP_SUFFIXES) or not os.path.isfile(os.path.join(root, f)):
            continue
        layer = top(f)
        if layer in FREE:
            continue
        if layer not in LAYERS:
            problems.append(f"{f}:1: the folder {layer}/ is not in the layer order (docs/architecture.md); "
                            "add it there and to tests/layers_test.py")
            continue
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            for no, line in enumerate(fh, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                quote, name = m.groups()
                if quote == "<":
                    if GL_HEADER.match(name) and layer != "viewer":
                        problems.append(f"{f}:{no}: includes <{name}>: only viewer/ holds GL code")
                    continue
                target = resolve(root, f, name)
                to = top(target)
                if to not in LAYERS:
                    continue  # a system, toolkit or generated header
                if LAYERS.index(to) > LAYERS.index(layer):
                    problems.append(f"{f}:{no}: includes \"{name}\": {to}/ is above {layer}/ in the layer order "
                                    f"({' < '.join(LAYERS)})")
                elif layer == "engine" and to == "compiler":
                    problems.append(f"{f}:{no}: includes \"{name}\": engine/ knows no compiler internals "
                                    "(shared helpers live in support/)")
    return problems


def python_imports(package_dir):
    """{module: [(line, imported module)]} for the package's own modules, including imports made
    inside functions (they close a circle just the same, only later)."""
    modules = {os.path.splitext(n)[0] for n in os.listdir(package_dir) if n.endswith(".py")}
    package = os.path.basename(package_dir)
    edges = {}
    for m in sorted(modules):
        with open(os.path.join(package_dir, m + ".py"), encoding="utf-8") as fh:
            tree = ast.parse(fh.read(), filename=m + ".py")
        out = []
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.ImportFrom):
                if node.level == 1 or (node.level == 0 and node.module and node.module.split(".")[0] == package):
                    base = (node.module or "") if node.level == 1 else node.module.partition(".")[2]
                    if base:
                        names.append(base.split(".")[0])
                    else:
                        names += [a.name for a in node.names]
            elif isinstance(node, ast.Import):
                for a in node.names:
                    parts = a.name.split(".")
                    if parts[0] == package:
                        names.append(parts[1] if len(parts) > 1 else "__init__")
            for n in names:
                if n in modules and n != m:
                    out.append((node.lineno, n))
        edges[m] = out
    return edges


def import_circles(package_dir):
    """Every import circle among the package's modules (its __init__ aside, which may import
    everything), each as 'a.py:LINE imports b -> b.py:LINE imports a'."""
    edges = python_imports(package_dir)
    graph = {m: [(line, n) for line, n in e if n != "__init__"] for m, e in edges.items() if m != "__init__"}
    circles, seen = [], set()

    def walk(m, path):
        for line, n in graph.get(m, []):
            steps = path + [(m, line, n)]
            if n == steps[0][0]:
                key = frozenset(s[0] for s in steps)
                if key not in seen:
                    seen.add(key)
                    circles.append(" -> ".join(f"{a}.py:{ln} imports {b}" for a, ln, b in steps))
            elif n not in {s[0] for s in steps} and n > steps[0][0]:
                walk(n, steps)

    for m in sorted(graph):
        walk(m, [])
    return circles


def test_includes_follow_the_layer_order():
    problems = include_violations(ROOT)
    assert not problems, "includes against the layer order:\n" + "\n".join(problems)


def test_python_package_has_no_import_circle():
    circles = import_circles(os.path.join(ROOT, "python", "weft"))
    assert not circles, "import circles in python/weft:\n" + "\n".join(circles)


# ---- the checks themselves, on a small tree made for them ----

def write(root, path, text):
    p = root / path
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)


def test_an_upward_include_is_named_with_file_and_line(tmp_path):
    write(tmp_path, "engine/body.h", "#pragma once\n")
    write(tmp_path, "runtime/array.cpp", '// an array\n#include "runtime/array.h"\n#include "engine/body.h"\n')
    write(tmp_path, "runtime/array.h", "#pragma once\n")
    write(tmp_path, "tests/anything_test.cpp", '#include "engine/body.h"\n#include "apps/cli.h"\n')
    assert include_violations(str(tmp_path)) == [
        'runtime/array.cpp:3: includes "engine/body.h": engine/ is above runtime/ in the layer order '
        "(support < gpusim < compiler < runtime < tape < kernels < engine < viewer < python < apps)"]


def test_relative_includes_resolve_next_to_the_includer(tmp_path):
    write(tmp_path, "gpusim/validation/cases.h", "#pragma once\n")
    write(tmp_path, "gpusim/validation/driver.cpp", '#include "cases.h"\n')
    write(tmp_path, "support/json.cpp", '#include "json.h"\n#include "compiler/types.h"\n')
    assert include_violations(str(tmp_path)) == [
        'support/json.cpp:2: includes "compiler/types.h": compiler/ is above support/ in the layer order '
        "(support < gpusim < compiler < runtime < tape < kernels < engine < viewer < python < apps)"]


def test_the_nevers_are_named(tmp_path):
    write(tmp_path, "engine/scene.cpp", '#include "compiler/diagnostics.h"\n')
    write(tmp_path, "apps/draw.cpp", "#include <GLFW/glfw3.h>\n")
    write(tmp_path, "viewer/window.cpp", "#include <GLFW/glfw3.h>\n#include <imgui.h>\n")
    write(tmp_path, "widgets/x.cpp", "\n")
    assert include_violations(str(tmp_path)) == [
        "apps/draw.cpp:1: includes <GLFW/glfw3.h>: only viewer/ holds GL code",
        'engine/scene.cpp:1: includes "compiler/diagnostics.h": engine/ knows no compiler internals '
        "(shared helpers live in support/)",
        "widgets/x.cpp:1: the folder widgets/ is not in the layer order (docs/architecture.md); "
        "add it there and to tests/layers_test.py"]


def test_an_import_circle_is_named_with_its_lines(tmp_path):
    pkg = tmp_path / "weft"
    write(pkg, "__init__.py", "from .arrays import array\nfrom .tape import Tape\n")
    write(pkg, "arrays.py", "from . import _weft\n\n\ndef copy():\n    from . import tape as _tape\n")
    write(pkg, "tape.py", "from . import arrays as _arrays\n")
    write(pkg, "types.py", "import weft.arrays\n")
    assert import_circles(str(pkg)) == ["arrays.py:5 imports tape -> tape.py:1 imports arrays"]
    write(pkg, "arrays.py", "from . import _weft\n")
    assert import_circles(str(pkg)) == []


if __name__ == "__main__":
    raise SystemExit(pytest.main(["-q", __file__]))
