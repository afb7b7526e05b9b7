"""The lid's bridges (enclosure/bridges.py): printed upside down, the floor of every tile seat is
laid over air; each must be a bridge anchored at both ends and no longer than the printable limit
(20 mm: 3D Orchard, "Designing gaps and bridges": 5-20 mm sag 0-0.2 mm on desktop FDM printers)."""
from pathlib import Path

import pytest

cq = pytest.importorskip("cadquery")
pytest.importorskip("trimesh")

ROOT = Path(__file__).resolve().parents[2]

from enclosure import bridges, build, lid  # noqa: E402
from enclosure import params as P  # noqa: E402
from enclosure.mesh import to_trimesh  # noqa: E402

pytestmark = pytest.mark.enclosure


def _lid_spans():
    return bridges.spans(to_trimesh(build.print_pose("lid", lid.build()), 0.05, 0.1))


def test_every_bridge_of_the_lid_is_anchored_and_short_enough():
    spans = _lid_spans()
    assert len(spans) == len(P.led_xy()), f"{len(spans)} bridges, expected one per tile seat"
    seat = P.TILE + 2 * P.TILE_TOL
    for z, span in spans:
        assert z == pytest.approx(P.TILE_SEAT_DEPTH, abs=1e-6)
        assert span == pytest.approx(seat, abs=0.01), f"a bridge of {span} mm at z = {z:.1f}"
        assert span <= bridges.BRIDGE_LIMIT


def test_the_bridge_check_fails_on_the_open_light_hole(monkeypatch):
    """Planted fault: the light hole cut through the seat's floor (the old lid): the bridge's lines
    end at the hole's rim whatever their direction."""
    monkeypatch.setattr(P, "LIGHT_MEMBRANE", 0.0)
    spans = _lid_spans()
    assert spans and all(span == float("inf") for _z, span in spans)


@pytest.mark.parametrize("gap,ok", [(10.0, True), (30.0, False)])
def test_the_bridge_limit_is_measured(gap, ok):
    """A block with a tunnel under a roof: a 10 mm roof passes, a 30 mm one does not."""
    body = cq.Solid.makeBox(gap + 10, 20, 10)
    tunnel = cq.Solid.makeBox(gap, 30, 5, cq.Vector(5, -5, 0))
    spans = bridges.spans(to_trimesh(body.cut(tunnel), 0.05, 0.1))
    assert len(spans) == 1 and spans[0][1] == pytest.approx(gap)
    assert (spans[0][1] <= bridges.BRIDGE_LIMIT) == ok
