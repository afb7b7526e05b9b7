"""A foot: printed in TPU, its peg pressed into the base's underside. Built in place for foot i."""
import math

from . import params as P
from .geom import cyl, fuse_all, single_solid


def build(index=0):
    x, y = P.foot_centres()[index]
    pad = cyl(P.FOOT_DIA / 2, -P.FOOT_H, 0, x, y)
    peg = cyl(P.FOOT_PEG_DIA / 2, 0, P.FOOT_PEG_H, x, y)
    return single_solid(fuse_all(pad, [peg]))


def expected_volume():
    return math.pi / 4 * (P.FOOT_DIA ** 2 * P.FOOT_H + P.FOOT_PEG_DIA ** 2 * P.FOOT_PEG_H)
