"""Does a knocked pole fall out of its socket, or jam? A quasi-static friction model.

Past the few degrees it can lean with its foot flat (reed.max_seated_tilt_deg), a tilted pole
bears on the socket's lip and presses its foot's upper edge against the opposite wall: a peg in a
hole at two-point contact, the case Whitney's peg-in-hole analysis treats ("Quasi-static assembly
of compliantly supported rigid parts", J. Dyn. Sys. Meas. Control 104, 1982): with friction the
two contact forces can hold the pole's weight, and it stays leaning instead of falling. Here the
pole's weight, the lip's force (normal to the pole, friction along it) and the wall's (normal to
the wall, friction along it) must balance in x, z and moment; the pole jams at a tilt if some
forces inside their friction cones (|F| <= mu N, N >= 0) do it: a small linear program.

MU: static friction of beech or PLA on printed PLA, ASSUMED 0.2-0.5 (PLA-on-PLA tribology
tests report about 0.3-0.4; the sweep runs to 0.6 to show where it breaks).
"""
import math

import numpy as np
from scipy.optimize import linprog

from . import params as P

MU_RANGE = (0.2, 0.6)


def _contacts(tilt_deg, bore, depth):
    """(lip point, foot corner, centre of mass, pole axis) of the pole leaning at tilt_deg in a
    cylindrical socket, in the x-z plane; None unless at two-point contact (lip and wall)."""
    t = math.radians(tilt_deg)
    s, c = math.sin(t), math.cos(t)
    r = P.POLE_DIA / 2
    lip = np.array([bore / 2, depth])
    # the foot's upper corner on the wall (x = -bore/2) and the pole's side tangent to the lip
    x = r * c - bore / 2
    z = (lip[0] * c - lip[1] * s - r - x * c) / -s
    corner = np.array([x - r * c, z + r * s])
    if z - r * s < 0 or not 0 <= corner[1] < depth:   # foot on the floor, or out of the socket
        return None
    u = np.array([s, c])
    return lip, corner, np.array([x, z]) + P.POLE_LEN / 2 * u, u


def wedge_free_depth(bore=None):
    """The deepest socket in which the foot can never touch the lip and the opposite wall at
    once: the pole's diagonal through the socket, sqrt(d^2 + depth^2), stays under the bore."""
    bore = P.SOCKET_BORE if bore is None else bore
    return math.sqrt(bore ** 2 - P.POLE_DIA ** 2)


def jams(tilt_deg, mu, bore=None, depth=None):
    """True when the pole can rest at tilt_deg (static equilibrium within the friction cones)."""
    bore = P.SOCKET_BORE if bore is None else bore
    depth = P.SOCKET_DEPTH if depth is None else depth
    k = _contacts(tilt_deg, bore, depth)
    if k is None:
        return False
    lip, corner, cg, u = k
    n2 = np.array([1.0, 0.0])                      # the wall pushes the foot towards +x
    n1 = np.array([-u[1], u[0]])                   # the lip pushes the pole up and back
    # unknowns: N1, F1 (along u), N2 (+x), F2 (+z); weight 1 at the centre of mass
    def moment(p, f):
        return p[1] * f[0] - p[0] * f[1]           # about the y axis, x-z plane
    t2 = np.array([-n2[1], n2[0]])                 # along the wall
    cols = [(n1, lip), (u, lip), (n2, corner), (t2, corner)]
    a_eq = [[f[0] for f, _ in cols], [f[1] for f, _ in cols], [moment(p, f) for f, p in cols]]
    w = np.array([0.0, -1.0])
    b_eq = [-w[0], -w[1], -moment(cg, w)]
    a_ub = [[-mu, 1, 0, 0], [-mu, -1, 0, 0], [0, 0, -mu, 1], [0, 0, -mu, -1]]
    res = linprog(np.zeros(4), A_ub=a_ub, b_ub=np.zeros(4), A_eq=a_eq, b_eq=b_eq,
                  bounds=[(0, None), (None, None), (0, None), (None, None)], method="highs")
    return res.status == 0


def contact_tilts(bore=None, depth=None, step=0.25):
    """Tilts (degrees) at two-point contact: from the foot's lifting off the floor to its
    leaving the socket."""
    bore = P.SOCKET_BORE if bore is None else bore
    depth = P.SOCKET_DEPTH if depth is None else depth
    return [t for t in np.arange(step, 90.0, step) if _contacts(t, bore, depth) is not None]


def jam_tilts(mu, bore=None, depth=None, step=0.25):
    """Tilts (degrees) at which the pole can jam."""
    return [t for t in contact_tilts(bore, depth, step) if jams(t, mu, bore, depth)]


if __name__ == "__main__":
    print(f"bore {P.SOCKET_BORE:.1f} mm: no wedge in a socket up to {wedge_free_depth():.2f} mm deep")
    for depth in (P.SOCKET_DEPTH, 4.0, 5.0):
        ct = contact_tilts(depth=depth)
        rng = f"{ct[0]:.1f}-{ct[-1]:.1f} deg" if ct else "none"
        row = []
        for mu in MU_RANGE:
            j = jam_tilts(mu, depth=depth)
            row.append(f"mu {mu}: {f'{j[0]:.1f}-{j[-1]:.1f} deg' if j else 'never'}")
        print(f"depth {depth:.1f} mm: two-point contact {rng}; jams " + ", ".join(row))
