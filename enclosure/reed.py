"""Does the reed switch close? A magpylib field simulation of the pole's magnet over the reed.

The reed's blades are soft iron: they gather the field that runs ALONG them, and the switch closes
when the magnetomotive force along the glass (the integral of H along the reed's axis, in
ampere-turns) reaches what the maker's test coil puts along it at the rated pull-in: a long coil
of length Lc carrying AT ampere-turns drives H = AT / Lc (Dexter Magnetic Technologies, "FAQ -
magnets for sensors": B = mu0 N I / Lc for coils longer than 5 diameters; Littelfuse application
note AN102A "Ampere*turn versus mT and Gauss" gives the same long-solenoid formula), so along a
glass of length Lg it is AT * Lg / Lc. AN102A adds that a field from one magnet pole, non-uniform
along the reed, needs about twice what a coil needs: the closed checks ask for ONE_POLE_FACTOR x
pull-in. The open checks take the field as if it were a coil's (factor 1) and the highest
remanence: a field that is less effective than assumed only opens the switch sooner.

Frame: the origin at the centre of the socket's floor (the pole's foot seated), z up; the reed
stands on the z axis below the bowl floor, its glass from -REED_DEPTH - Lg to -REED_DEPTH.
Lengths in millimetres, fields in tesla. `python -m enclosure.reed` prints the table and draws
docs/enclosure/reed-field.png.
"""
import math

import magpylib as magpy
import numpy as np

from . import params as P

MU0 = 4e-7 * math.pi
ONE_POLE_FACTOR = 2.0      # AN102A: one magnet pole needs ~2x the field of a coil (both poles)
# The maker's test coil: at least the glass long (it holds the glass), ASSUMED at most 1.5 x (EIA
# NARM RS-421-A style coils are sized to the switch). Closed checks take the shortest coil (the
# highest field for the rating), open checks the longest.
COIL_LEN = (P.REED_GLASS_LEN, 1.5 * P.REED_GLASS_LEN)
SAMPLES = 141              # points along the glass (0.1 mm apart)

# The socket floor (the seated foot) to the glass top: the bowl floor, the air gap and the
# lead bend above the glass (the magnet sits MAGNET_CAPTURE above the foot).
REED_DEPTH = P.BOWL_FLOOR + P.REED_GAP + P.REED_LEAD_BEND
MAGNET_OFFSET = P.MAGNET_CAPTURE + P.MAGNET_H / 2   # magnet centre from the foot, along the pole


def pull_in_at():
    """Ampere-turns along the glass the reed needs to close for sure (the band's top, one pole)."""
    return ONE_POLE_FACTOR * P.REED_PULL_IN_AT[1] * P.REED_GLASS_LEN / COIL_LEN[0]


def drop_out_at():
    """Ampere-turns along the glass below which the reed is open for sure (the lowest drop-out)."""
    return P.REED_DROP_OUT_AT_MIN * P.REED_GLASS_LEN / COIL_LEN[1]


def hold_at():
    """Ampere-turns that keep a closed reed closed for sure: the band's top pull-in, coil-like
    (drop-out is always below pull-in; a closed reed needs no one-pole factor to stay shut)."""
    return P.REED_PULL_IN_AT[1] * P.REED_GLASS_LEN / COIL_LEN[0]


def magnet(foot, axis, br):
    """The magnet of a pole whose foot centre is `foot` and whose axis (unit, foot -> top) is
    `axis`, magnetised along the pole with remanence br (T)."""
    foot, axis = np.asarray(foot, float), np.asarray(axis, float)
    centre = foot + MAGNET_OFFSET * axis
    z = np.array([0.0, 0.0, 1.0])
    rot = _rotation(z, axis)
    return magpy.magnet.Cylinder(polarization=(0, 0, br), dimension=(P.MAGNET_DIA / 1000, P.MAGNET_H / 1000),
                                 position=centre / 1000, orientation=rot)


def _rotation(a, b):
    from scipy.spatial.transform import Rotation as R

    v = np.cross(a, b)
    s = np.linalg.norm(v)
    if s < 1e-12:
        return R.identity() if np.dot(a, b) > 0 else R.from_rotvec([math.pi, 0, 0])
    return R.from_rotvec(v / s * math.atan2(s, np.dot(a, b)))


def reed_axis(arrangement="upright"):
    """(points (n, 3) in mm, unit axis) of the glass. 'upright': the design, on the pole's axis.
    'flat': the OLD arrangement, lying along x centred under the magnet 2 mm under the tower top
    (kept to show, in the tests, that it cannot close)."""
    if arrangement == "upright":
        z = -REED_DEPTH - np.linspace(0, P.REED_GLASS_LEN, SAMPLES)
        return np.c_[np.zeros(SAMPLES), np.zeros(SAMPLES), z], np.array([0.0, 0.0, 1.0])
    if arrangement == "flat":
        x = np.linspace(-P.REED_GLASS_LEN / 2, P.REED_GLASS_LEN / 2, SAMPLES)
        z = -(P.BOWL_FLOOR + P.REED_GAP + 0.5 + P.REED_GLASS_DIA / 2)
        return np.c_[x, np.zeros(SAMPLES), np.full(SAMPLES, z)], np.array([1.0, 0.0, 0.0])
    raise ValueError(f"unknown reed arrangement {arrangement!r}")


def axial_field(mag, arrangement="upright"):
    """(positions along the glass in mm, B along the reed's axis in T)."""
    pts, axis = reed_axis(arrangement)
    b = mag.getB(pts / 1000) @ axis
    s = (pts - pts[0]) @ axis
    return np.abs(s), b


def mmf_at(mag, arrangement="upright"):
    """Ampere-turns along the glass: |integral of B/mu0 along the reed's axis|."""
    s, b = axial_field(mag, arrangement)
    return abs(np.trapezoid(b, s / 1000)) / MU0


# --- the pole's poses ---------------------------------------------------------------------------

R_POLE = P.POLE_DIA / 2
BORE = P.SOCKET_BORE
DEPTH = P.SOCKET_DEPTH


def seated(dx=0.0, dy=0.0):
    """Upright, its foot on the socket floor, anywhere in the socket's play."""
    return (dx, dy, 0.0), (0.0, 0.0, 1.0)


def lifted(h):
    return (0.0, 0.0, h), (0.0, 0.0, 1.0)


def leaning(tilt_deg):
    """The pole leaning towards +x by tilt_deg, its foot in the socket: it bears on the socket's
    +x lip with the foot's upper edge against the -x wall, or, at small tilts, the foot's lower
    edge on the floor (whichever is higher). The rim case is leaning(rim_tilt_deg())."""
    t = math.radians(tilt_deg)
    if t < 1e-9:
        return seated()
    c, s = math.cos(t), math.sin(t)
    along = (BORE - P.POLE_DIA * c) / s          # foot edge to the lip contact, along the pole
    z_lip = DEPTH + R_POLE * s - along * c
    z = max(z_lip, R_POLE * s)
    return (-BORE / 2 + R_POLE * c, 0.0, z), (s, 0.0, c)


def rim_tilt_deg():
    """Tilt of a pole leaning from its socket's lip on the bowl's rim (the rules allow it)."""
    rim_r = P.BOWL_R_RIM
    return math.degrees(math.atan2(rim_r - BORE / 2, P.BOWL_DEPTH - DEPTH))


def fallen(offset, tilt_deg, azimuth_deg=0.0):
    """Knocked out of the socket: the foot `offset` mm from the axis on the bowl's floor or, past
    the floor's edge, on its drafted wall, the pole tilted tilt_deg (past 90: over the rim on its
    way to the table)."""
    a, t = math.radians(azimuth_deg), math.radians(tilt_deg)
    z = max(0.0, (offset - P.BOWL_R_FLOOR) / math.tan(math.radians(P.BOWL_DRAFT_DEG)))
    z = min(z, P.BOWL_DEPTH) + R_POLE * abs(math.sin(t))
    foot = (offset * math.cos(a), offset * math.sin(a), z)
    return foot, (math.sin(t) * math.cos(a), math.sin(t) * math.sin(a), math.cos(t))


def tips_over_the_rim():
    """A pole leaning on the rim whose foot has left the socket falls onto the table: its centre
    of mass (half its length up, the magnet's few grams at the foot only lower it) lies beyond
    the rim contact, so nothing holds the foot back. Returns (centre of mass, rim contact), both
    as distances from the foot along the pole."""
    foot, axis = leaning(rim_tilt_deg())
    lip = np.array([BORE / 2, 0.0, DEPTH])
    rim = np.array([P.BOWL_R_RIM, 0.0, P.BOWL_DEPTH])
    contact = float(np.dot(rim - np.asarray(foot), axis))
    assert np.dot(lip - np.asarray(foot), axis) < contact
    return P.POLE_LEN / 2, contact


def mmf(pose, br, arrangement="upright"):
    foot, axis = pose
    return mmf_at(magnet(foot, axis, br), arrangement)


# --- the cases the tests check and the table prints ---------------------------------------------

def seated_poses():
    """Every corner of the socket's play, and the tilts the foot allows on the floor."""
    play = (BORE - P.POLE_DIA) / 2
    out = [seated(dx, dy) for dx in (-play, 0, play) for dy in (-play, 0, play)]
    out += [leaning(t) for t in np.linspace(0.5, max_seated_tilt_deg(), 5)]
    return out


def max_seated_tilt_deg():
    """Largest tilt with the foot's lower edge still on the floor: beyond it the pole bears on
    the lip (the first root of d cos t + depth sin t = bore, below the maximum at atan(depth/d));
    in a socket too shallow for that root (pole_socket.wedge_free_depth) the range runs to that
    maximum, which only widens the seated poses checked."""
    lo, hi = 0.0, math.atan2(DEPTH, P.POLE_DIA)
    for _ in range(60):
        m = (lo + hi) / 2
        if P.POLE_DIA * math.cos(m) + DEPTH * math.sin(m) < BORE:
            lo = m
        else:
            hi = m
    return math.degrees(lo)


def lean_poses():
    return [leaning(t) for t in np.linspace(0, rim_tilt_deg(), 12)]


def fallen_poses():
    """A fallen pole's foot ends on the bowl's wall or over the rim (tips_over_the_rim); the
    nearest it can lie is the floor's edge."""
    out = []
    for off in (P.BOWL_R_FLOOR, P.BOWL_R_RIM):
        for tilt in np.linspace(rim_tilt_deg(), 120.0, 7):
            for az in (0.0, 45.0):
                out.append(fallen(off, tilt, az))
    return out


LIFT_OUT = P.BOWL_DEPTH    # a pole lifted until its foot is level with the rim: out of the nest


def _opening(pose_at, hi=200.0):
    """The least argument of pose_at(x) beyond which the reed is open for sure (bisection; the
    field falls with x over the range used)."""
    br = P.MAGNET_BR_T[1]
    lo = 0.0
    for _ in range(40):
        m = (lo + hi) / 2
        if mmf(pose_at(m), br) > drop_out_at():
            lo = m
        else:
            hi = m
    return hi


def opening_lift_mm():
    """Height above its seat at which a lifted pole's reed is open for sure."""
    return _opening(lifted)


def opening_offset_mm():
    """How far from the axis a fallen pole's foot (on the floor, lying flat) must be for the reed
    to be open for sure."""
    return _opening(lambda off: fallen(off, 90.0), hi=P.BOWL_R_FLOOR)


def table():
    """Rows (case, worst mmf in AT, limit in AT, verdict) over every pose of each case."""
    lo_br, hi_br = P.MAGNET_BR_T
    seated_min = min(mmf(p, lo_br) for p in seated_poses())
    lean_min = min(mmf(p, lo_br) for p in lean_poses())
    fallen_max = max(mmf(p, hi_br) for p in fallen_poses())
    lifted_max = mmf(lifted(LIFT_OUT), hi_br)
    return [
        ("seated, over the socket's play and tilt", seated_min, ">=", pull_in_at()),
        (f"leaning up to the rim ({rim_tilt_deg():.0f} deg)", lean_min, ">=", hold_at()),
        (f"lifted {LIFT_OUT:.0f} mm", lifted_max, "<=", drop_out_at()),
        ("fallen: foot at the floor's edge or the rim", fallen_max, "<=", drop_out_at()),
        ("OLD: flat reed centred under the magnet",
         max(mmf(p, hi_br, "flat") for p in seated_poses()[:9]), ">=", pull_in_at()),
    ]


def plot(path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    lo_br = P.MAGNET_BR_T[0]
    fig, ax = plt.subplots(figsize=(8, 4.6), dpi=100)
    cases = [("seated (upright reed)", seated(), "upright", "C0"),
             (f"leaning on the rim ({rim_tilt_deg():.0f} deg)", leaning(rim_tilt_deg()), "upright", "C2"),
             (f"lifted {LIFT_OUT:.0f} mm", lifted(LIFT_OUT), "upright", "C1"),
             ("fallen (foot at the floor's edge)", fallen(P.BOWL_R_FLOOR, 90), "upright", "C3"),
             ("OLD flat reed, seated (+0.3 mm play)", seated(0.3, 0), "flat", "k")]
    for label, (foot, axis), arr, col in cases:
        s, b = axial_field(magnet(foot, axis, lo_br), arr)
        at = mmf_at(magnet(foot, axis, lo_br), arr)
        ax.plot(s, b * 1000, col, label=f"{label}: {at:.1f} AT")
    for v, txt, ls in ((pull_in_at(), "pull-in x2 (one pole)", "--"), (drop_out_at(), "drop-out", ":")):
        ax.axhline(v * MU0 / (P.REED_GLASS_LEN / 1000) * 1000, color="grey", ls=ls, lw=1)
        ax.text(P.REED_GLASS_LEN, v * MU0 / (P.REED_GLASS_LEN / 1000) * 1000, f" mean for {txt}",
                va="bottom", ha="right", fontsize=8, color="grey")
    ax.set_yscale("symlog", linthresh=0.5)
    ax.set_xlabel("position along the glass (mm from its magnet-side end)")
    ax.set_ylabel("B along the reed's axis (mT)")
    ax.set_title(f"{P.REED_PART}; magnet {P.MAGNET_DIA:g} x {P.MAGNET_H:g} mm N42 (Br {lo_br} T)",
                 fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


if __name__ == "__main__":
    from pathlib import Path

    print(f"{'case':48s} {'AT':>7s}   limit")
    for case, at, op, limit in table():
        print(f"{case:48s} {at:7.1f} {op} {limit:5.1f}")
    print(f"a lifted pole opens the reed {opening_lift_mm():.1f} mm above its seat; a fallen one "
          f"once its foot is {opening_offset_mm():.1f} mm from the axis")
    out = Path(__file__).resolve().parent.parent / "docs" / "enclosure" / "reed-field.png"
    plot(out)
    print(f"wrote {out}")
