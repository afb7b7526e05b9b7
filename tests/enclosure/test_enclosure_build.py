"""`make enclosure` (enclosure/build.py) produces every file it promises, in a scratch directory."""
import shutil
from pathlib import Path

import pytest

pytest.importorskip("cadquery")
trimesh = pytest.importorskip("trimesh")

ROOT = Path(__file__).resolve().parents[2]

from enclosure import build, model, wiring  # noqa: E402

pytestmark = pytest.mark.enclosure


def test_build_writes_parts_renders_and_wiring(tmp_path, monkeypatch):
    out, docs = tmp_path / "out", tmp_path / "docs"
    monkeypatch.setattr(build, "OUT", out)
    monkeypatch.setattr(build, "DOCS", docs)
    # build.py refreshes wiring.yml when board.py changed: never let a test rewrite the repo's copy
    # (test_wiring.py must see a stale file as stale).
    monkeypatch.setattr(wiring, "YAML_PATH", tmp_path / "wiring.yml")
    render = shutil.which("dot") is not None       # WireViz needs Graphviz
    assert build.main(["--docs"] if render else ["--no-render"]) == 0
    for name in model.PARTS:
        mesh = trimesh.load(out / f"{name}.stl")
        assert mesh.is_watertight and mesh.volume > 0, name
        assert (out / f"{name}.step").read_text().startswith("ISO-10303-21"), name
        assert mesh.bounds[0][2] == pytest.approx(0, abs=1e-3), f"{name}.stl not on the bed"
    split = [f"{part}_split_{i}" for part in ("base", "lid") for i in range(1, 5)]
    for name in split:                 # base and lid in four for a 220 x 220 mm bed (split.py)
        mesh = trimesh.load(out / f"{name}.stl")
        assert mesh.is_watertight and mesh.bounds[0][2] == pytest.approx(0, abs=1e-3), name
        assert max(mesh.extents[:2]) <= 210.0, name
    assert (out / "assembly.step").stat().st_size > 100_000
    assert (tmp_path / "wiring.yml").read_text() == wiring.dump()
    if render:
        for png in ("assembly", "exploded", "section", "wiring", "reed-field", "schematic", "perfboard"):
            assert (out / f"{png}.png").stat().st_size > 10_000, png
            assert (docs / f"{png}.png").stat().st_size < 300_000, png
        assert "<svg" in (out / "wiring.svg").read_text()
