"""The firmware's modules import one another without a cycle (issue 16: 13 of 24 modules once sat in
one cycle, held together by import-and-forget). The graph is read from the source with `ast`: every
`import gulo.X` / `from gulo import X` / `from gulo.X import ...`, at the top of a module or inside
a function. A cycle is allowed only where one of its imports carries a comment on its own line
that says why (`# import cycle: ...`)."""

import ast
from pathlib import Path

GULO = Path(__file__).resolve().parents[2] / "firmware" / "gulo"
WHY = "# import cycle:"


def imports(path):
    """{imported gulo module: explained?} for one source file."""
    source = path.read_text()
    lines = source.splitlines()
    found = {}
    for node in ast.walk(ast.parse(source, str(path))):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "gulo":
                names = ["gulo." + a.name for a in node.names]
            else:
                names = [node.module]
        for name in names:
            if name.startswith("gulo."):
                mod = name.split(".")[1]
                explained = WHY in lines[node.lineno - 1] or (
                    node.lineno >= 2 and WHY in lines[node.lineno - 2])
                found[mod] = found.get(mod, False) or explained
    return found


def graph(folder):
    """{module: {imported module: explained?}} for every module of the package in `folder`."""
    return {p.stem: imports(p) for p in sorted(folder.glob("*.py")) if p.stem != "__init__"}


def cycles(g):
    """Every unexplained cycle, each as a list of modules (a -> b -> ... -> a), found by a depth-first
    search over the imports that carry no `# import cycle:` comment."""
    edges = {m: sorted(t for t, why in deps.items() if not why and t in g) for m, deps in g.items()}
    found, state = [], {}

    def visit(m, stack):
        state[m] = "open"
        stack.append(m)
        for t in edges[m]:
            if state.get(t) == "open":
                found.append(stack[stack.index(t):] + [t])
            elif t not in state:
                visit(t, stack)
        stack.pop()
        state[m] = "done"

    for m in sorted(edges):
        if m not in state:
            visit(m, [])
    return found


def test_the_firmware_imports_in_no_cycle():
    g = graph(GULO)
    assert len(g) > 15 and "app" in g and "rules" in g["turnflow"], g  # the graph was read
    found = cycles(g)
    assert found == [], "firmware/gulo imports in a cycle: " + "; ".join(" -> ".join(c) for c in found)


def plant(tmp_path, importer, imported, comment=""):
    """A copy of firmware/gulo where `importer` also imports `imported` (at the top)."""
    pkg = tmp_path / "gulo"
    pkg.mkdir()
    for p in GULO.glob("*.py"):
        (pkg / p.name).write_text(p.read_text())
    target = pkg / (importer + ".py")
    target.write_text(f"{comment}from gulo import {imported}  # noqa\n" + target.read_text())
    return pkg


def test_planted_a_cycle_fails_the_check(tmp_path):
    # rules is imported by turnflow; rules importing turnflow back closes a cycle.
    found = cycles(graph(plant(tmp_path, "rules", "turnflow")))
    assert found and any({"rules", "turnflow"} <= set(c) for c in found), found


def test_planted_a_cycle_inside_a_function_fails_the_check(tmp_path):
    pkg = plant(tmp_path, "weigher", "sounds")
    late = "\n\ndef _late():\n    from gulo.weigher import Weigher\n    return Weigher\n"
    (pkg / "sounds.py").write_text((pkg / "sounds.py").read_text() + late)
    assert any({"weigher", "sounds"} <= set(c) for c in cycles(graph(pkg)))


def test_planted_a_cycle_with_its_reason_passes(tmp_path):
    pkg = plant(tmp_path, "rules", "turnflow", "# import cycle: planted by the test, the comment counts\n")
    assert cycles(graph(pkg)) == []
