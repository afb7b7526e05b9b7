"""The pole's socket lets a knocked pole fall (enclosure/pole_socket.py): a quasi-static friction model
of the pole at two-point contact (lip and opposite wall), after Whitney's peg-in-hole analysis.
The planted fault is the old 10.6 x 5 mm socket, which the model shows jamming."""
from pathlib import Path

import pytest

pytest.importorskip("scipy")

ROOT = Path(__file__).resolve().parents[2]

from enclosure import params as P  # noqa: E402
from enclosure import pole_socket as socket  # noqa: E402

pytestmark = pytest.mark.enclosure


def test_the_socket_cannot_wedge_the_pole():
    assert P.SOCKET_DEPTH < socket.wedge_free_depth()
    assert socket.contact_tilts() == []
    for mu in socket.MU_RANGE:
        assert socket.jam_tilts(mu) == []


def test_the_old_5_mm_socket_jams():
    """Planted fault: 5 mm deep, the pole wedges between lip and wall from 8 to 19 degrees and
    friction holds it at any plausible coefficient: it would lean there instead of falling."""
    tilts = socket.jam_tilts(socket.MU_RANGE[0], depth=5.0)
    assert tilts and tilts[0] == pytest.approx(8.0, abs=0.5) and tilts[-1] == pytest.approx(19.2, abs=0.5)


def test_without_friction_nothing_jams():
    """The model's sanity: at two-point contact a frictionless pole always moves on (its centre of
    mass, 95 mm up, lies beyond the lip)."""
    tilts = socket.contact_tilts(depth=5.0)
    assert tilts and not any(socket.jams(t, 0.0, depth=5.0) for t in tilts)


def test_still_a_socket():
    """Shallow, but it locates: the pole's foot sits in it with 0.3 mm play."""
    assert P.SOCKET_DEPTH >= 2.0 and P.SOCKET_BORE - P.POLE_DIA == pytest.approx(2 * P.SOCKET_TOL)
