"""The overload stop under the bowl: where it is, and the load cell's deflection it must clear.

The cell's deflection at rated load, from its data sheet's rated output: a full bridge of four
active gauges gives V/V = k * strain (HBM, "The Wheatstone Bridge Circuit"), so at rated output
(1 mV/V) and k = 2 the gauges see 500 microstrain. The flexure's webs are parallel guided beams:
a guided beam of length l bent by its end's deflection d has surface strain 3 t d / l^2 (thickness
t; Roark's Formulas for Stress and Strain, table 8.1 case 1e: d = F l^3 / (12 E I), M = F l / 2),
so d = strain * l^2 / (3 t). The web's l and t are not on the data sheet (nor is a deflection):
FLEXURE_L and FLEXURE_T are ranges (measure yours), which give 0.0125-0.15 mm at rated load. No
printed or gauged gap can make a stop touch between the play load and the 120 % safe overload over
that range, so the four stops are set under load (params.py STOP_SET_LOAD_G, ASSEMBLY.md step 10).
"""
from . import params as P

FLEXURE_L = (15.0, 30.0)   # ASSUMED: hinge span of the binocular holes, mm (the 30 mm flexure)
FLEXURE_T = (1.0, 3.0)     # ASSUMED: thinnest web, mm


def rated_strain():
    return P.CELL_RATED_OUTPUT / P.GAUGE_FACTOR


def deflection_mm(load_g, length, thickness):
    return rated_strain() * load_g / P.CELL_CAPACITY_G * length ** 2 / (3 * thickness)


def worst_deflection_mm(load_g=P.CELL_CAPACITY_G):
    """The largest deflection over the flexure's plausible shapes (longest, thinnest)."""
    return deflection_mm(load_g, FLEXURE_L[1], FLEXURE_T[0])


def screw_top():
    """Top of each stop screw: flush with the bowl's floor, its hex socket facing up."""
    return P.BOWL_FLOOR_TOP


def screw_tip():
    return screw_top() - P.STOP_SCREW_LEN


def boss_bottom():
    return P.BOWL_Z0 - P.STOP_BOSS_H


def pad_top():
    """Top of the printed pad on the base floor under each screw: STOP_GAP under the tip."""
    return screw_tip() - P.STOP_GAP


def touch_load_g():
    """Total load on the cell at which the set stops touch: the setting load, whatever the cell's
    stiffness (they are set by the reading, not by a gap)."""
    return P.STOP_SET_LOAD_G


def preset_turns():
    """Turns of a screw from the modelled STOP_GAP down to the feeler gauge's preset gap."""
    return (P.STOP_GAP - P.STOP_PRESET_GAP) / P.STOP_PITCH
