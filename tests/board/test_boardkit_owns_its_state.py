"""testkit.boardkit.NestUnderTest owns what it holds: only its own methods (and a subclass's)
assign its attributes or call its private methods. The module's functions, the drills and the
tests act through its methods (new, follow, prompts_held, boot_raises, ...), so a change to how it
keeps its state is made in one class. Read from the source: a write that slips back in fails
here at once, not as a board run that goes wrong later."""

import ast
from pathlib import Path

from testkit import boardkit

ROOT = Path(boardkit.__file__).resolve().parents[1]
SCANNED = ("testkit", "tests", "lab")
CLASS = "NestUnderTest"


def _stores(node):
    """The attribute targets an assignment, augmented assignment or `del` writes."""
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        targets = [node.target]
    elif isinstance(node, ast.Delete):
        targets = node.targets
    else:
        return []
    found = []
    for t in targets:
        for sub in ast.walk(t):
            if isinstance(sub, ast.Attribute) and isinstance(sub.ctx, (ast.Store, ast.Del)):
                found.append(sub)
            elif isinstance(sub, ast.Subscript) and isinstance(sub.value, ast.Attribute):
                found.append(sub.value)   # nest.actions[...] = ..., del nest.outcomes[...]
    return found


def _is_self(node):
    return isinstance(node, ast.Name) and node.id == "self"


def the_class():
    tree = ast.parse(Path(boardkit.__file__).read_text())
    return next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == CLASS)


def state_and_privates():
    """The attribute names NestUnderTest's methods assign on self, and its private names."""
    cls = the_class()
    state = {t.attr for n in ast.walk(cls) for t in _stores(n) if _is_self(t.value)}
    methods = {n.name for n in cls.body if isinstance(n, ast.FunctionDef)}
    private = {name for name in state | methods if name.startswith("_") and not name.endswith("__")}
    return state, private


def _owned(tree):
    """The nodes inside NestUnderTest or a class derived from it (a planted harness)."""
    inside = set()
    for cls in ast.walk(tree):
        if isinstance(cls, ast.ClassDef) and (cls.name == CLASS or any(
                isinstance(b, (ast.Name, ast.Attribute)) and getattr(b, "id", getattr(b, "attr", "")) == CLASS
                for b in cls.bases)):
            inside.update(id(n) for n in ast.walk(cls))
    return inside


def outside_writes(source, state, private):
    """(line, what) for each write of `state` and each use of `private` outside the class."""
    tree = ast.parse(source)
    inside = _owned(tree)
    found = []
    for node in ast.walk(tree):
        if id(node) in inside:
            continue
        for t in _stores(node):
            if t.attr in state and not _is_self(t.value):
                found.append((t.lineno, f"writes .{t.attr}"))
        if isinstance(node, ast.Attribute) and node.attr in private and not _is_self(node.value):
            found.append((node.lineno, f"uses .{node.attr}"))
    return found


def uses_the_harness(path, source):
    """boardkit itself, or a module that imports from it (another module's `w.actions` is its own)."""
    if path == Path(boardkit.__file__).resolve():
        return True
    return any(isinstance(n, ast.ImportFrom) and (n.module or "").endswith("boardkit")
               or isinstance(n, ast.Import) and any(a.name.endswith("boardkit") for a in n.names)
               for n in ast.walk(ast.parse(source)))


def test_nothing_outside_the_class_writes_its_state_or_calls_its_privates():
    state, private = state_and_privates()
    assert {"game", "actions", "outcomes", "auto", "phase", "_raise_on_boot"} <= state | private
    offences = []
    for folder in SCANNED:
        for path in sorted((ROOT / folder).rglob("*.py")):
            source = path.read_text()
            if not uses_the_harness(path.resolve(), source):
                continue
            for line, what in outside_writes(source, state, private):
                offences.append(f"{path.relative_to(ROOT)}:{line}: {what}")
    assert offences == []


def test_the_check_sees_a_write_and_a_private_call_from_outside():
    state, private = state_and_privates()
    planted = ("def stage(nest, game, actions, state):\n"
               "    nest.game, nest.actions = game, list(actions)\n"
               "    nest.outcomes[:] = []\n"
               "    nest._check_state(state, 'staged')\n")
    assert outside_writes(planted, state, private) == [
        (2, "writes .game"), (2, "writes .actions"), (3, "writes .outcomes"), (4, "uses ._check_state")]
