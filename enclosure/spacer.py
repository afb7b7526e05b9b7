"""The spacer between the load cell's free end and the bowl: it lifts the bowl BOWL_STANDOFF_H
clear of the cell and bears on the cell's end block only (it stops FLEX_CLEAR short of the
flexure). A separate part so that the bowl's underside stays flat and prints without support;
print it solid (100 % infill)."""
import math

from . import params as P
from .bowl import screw_xs
from .geom import box, cut_all, cyl, single_solid


def pad_box():
    """(xmin, ymin, zmin, xmax, ymax, zmax) of the spacer on the cell's free (+x) end."""
    x1 = P.CELL_L / 2
    return (x1 - P.PAD_LEN, P.CELL_Y - P.CELL_W / 2, P.CELL_TOP,
            x1, P.CELL_Y + P.CELL_W / 2, P.BOWL_Z0)


def build():
    holes = [cyl(P.CELL_SCREW_CLEAR / 2, P.CELL_TOP - 1, P.BOWL_Z0 + 1, x, P.CELL_Y)
             for x in screw_xs()]
    return single_solid(cut_all(box(*pad_box()), holes))


def expected_volume():
    x0, y0, z0, x1, y1, z1 = pad_box()
    return (x1 - x0) * (y1 - y0) * (z1 - z0) - 2 * math.pi / 4 * P.CELL_SCREW_CLEAR ** 2 * (z1 - z0)
