"""The house's layout holds: the product imports nothing from the lab or the test kit, nothing
reaches into sys.path to find a module, no link crosses a package, and the docs are references
(each at most 30 KB, the rules among them)."""

import ast
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = (ROOT / "host_tools" / "nest", ROOT / "firmware" / "gulo")
NOT_SHIPPED = ("lab", "testkit", "enclosure")
DOC_LIMIT = 30 * 1024


def imported_roots(path):
    """The top-level names a Python file imports (absolute imports only)."""
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name.split(".")[0], node.lineno
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module.split(".")[0], node.lineno


def product_imports_of_unshipped(folders, root=ROOT):
    return [f"{p.relative_to(root)}:{line}: imports {name}"
            for folder in folders for p in sorted(folder.rglob("*.py"))
            for name, line in imported_roots(p) if name in NOT_SHIPPED]


def test_the_product_imports_nothing_that_is_not_shipped():
    assert product_imports_of_unshipped(PRODUCT) == []


def test_the_import_check_sees_a_planted_lab_and_testkit_import(tmp_path):
    (tmp_path / "cmd_x.py").write_text("import json\nfrom lab.weighscore import score\n"
                                       "def f():\n    import testkit.boardkit\n")
    assert product_imports_of_unshipped([tmp_path], tmp_path) == ["cmd_x.py:2: imports lab",
                                                                  "cmd_x.py:4: imports testkit"]


def _is_sys_path(node):
    return (isinstance(node, ast.Attribute) and node.attr == "path" and isinstance(node.value, ast.Name)
            and node.value.id == "sys")


def sys_path_edits(files, root=ROOT):
    """file:line of each change to the host's sys.path (code for the board, in strings, is not)."""
    found = []
    for p in files:
        for node in ast.walk(ast.parse(p.read_text(), str(p))):
            call = isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            if call and _is_sys_path(node.func.value) and node.func.attr in ("insert", "append", "extend"):
                found.append(f"{p.relative_to(root)}:{node.lineno}")
            elif isinstance(node, (ast.Assign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(_is_sys_path(t.value if isinstance(t, ast.Subscript) else t) for t in targets):
                    found.append(f"{p.relative_to(root)}:{node.lineno}")
    return sorted(found, key=lambda f: (f.rsplit(":", 1)[0], int(f.rsplit(":", 1)[1])))


def host_python_files():
    tracked = subprocess.run(["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout.split()
    # code that runs inside MicroPython (the board's own sys.path) is not the host's
    inside_vm = ("firmware/", "host_tools/nest/vboard/mpy/", "lab/heapmodel/mpy/", "lab/alarm_probe/")
    return [ROOT / f for f in tracked if not f.startswith(inside_vm) and (ROOT / f).exists()]


def test_no_host_script_or_test_edits_sys_path():
    assert sys_path_edits(host_python_files()) == []


def test_the_sys_path_check_sees_a_planted_insert(tmp_path):
    script = tmp_path / "bench_x.py"
    script.write_text("import sys\n# sys.path.insert(0, 'a comment')\nsys.path.insert(0, 'tools')\n"
                      "BOARD = \"sys.path.insert(0, '/lib')\"\nsys.path[:0] = ['x']\n")
    assert sys_path_edits([script], tmp_path) == ["bench_x.py:3", "bench_x.py:5"]


def test_no_symlink_is_tracked():
    out = subprocess.run(["git", "ls-files", "-s"], cwd=ROOT, capture_output=True, text=True, check=True)
    links = [line.split("\t")[1] for line in out.stdout.splitlines() if line.startswith("120000")]
    assert links == []


@pytest.mark.parametrize("doc", sorted((ROOT / "docs").glob("*.md")), ids=lambda p: p.name)
def test_each_doc_is_a_reference_of_at_most_30_kb(doc):
    assert doc.stat().st_size <= DOC_LIMIT, f"{doc.name}: {doc.stat().st_size} bytes"


def test_the_rules_are_in_the_project():
    text = (ROOT / "docs" / "rules.md").read_text()
    assert "EGG ALARM" in text and "Gulo junior" in text
