"""The overload stop under the bowl: where it is, and the load cell's deflection it must clear.

The cell's deflection at rated load, from its data sheet's rated output: a full bridge of four
active gauges gives V/V = k * strain (HBM, "The Wheatstone Bridge Circuit"), so at rated output
(1 mV/V) and k = 2 the gauges see 500 microstrain. The flexure's webs are parallel guided beams:
a guided beam of length l bent by its end's deflection d has surface strain 3 t d / l^2 (thickness
t; Roark's Formulas for Stress and Strain, table 8.1 case 1e: d = F l^3 / (12 E I), M = F l / 2),
so d = strain * l^2 / (3 t). The web's l and t are not on the data sheet: FLEXURE_L and FLEXURE_T
are ranges (measure yours), and the stop's printed gap must clear the largest deflection.
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


def post_top():
    """Top of the printed post; the screw's tip stands STOP_SCREW_PROUD above it."""
    return P.BOWL_Z0 - P.STOP_GAP - P.STOP_SCREW_PROUD


def screw_tip():
    return post_top() + P.STOP_SCREW_PROUD


def turns_to_touch():
    """Turns of the screw from as printed to touching the bowl (the setting procedure)."""
    return P.STOP_GAP / P.STOP_PITCH
