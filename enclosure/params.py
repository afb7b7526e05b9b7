"""Every dimension of the nest, in millimetres, with where it comes from.

One coordinate frame for the whole assembly: the origin is on the bowl's axis at the underside of
the base floor, x to the right, y to the back (the USB socket side), z up. Parts are modelled in
place (assembled position), so clearance tests need no transforms; build.py lays them flat for
printing only in the exported STL/STEP.

Derived values are computed here (not in the part modules) so that the tests can recompute
volumes and clearances from the same numbers without asking the CAD kernel.

Measure your own parts before printing: cheap modules vary between sellers. Every figure marked
ASSUMED is a typical value, not a datasheet guarantee.
"""
import math

# --- Printing -----------------------------------------------------------------------------------
# 0.4 mm nozzle: walls of 4-6 perimeters. The geometry tests require every wall >= MIN_WALL.
MIN_WALL = 1.6
WALL = 2.4              # general shell wall (6 perimeters)
FLOOR = 3.0             # base floor, carries the load cell riser screws

# --- The game's material ------------------------------------------------------------------------
# Gulo Gulo (Zoch, 2003) eggs are turned wooden eggs. ASSUMED 24 mm x 31 mm (diameter x length):
# the figure usually quoted by owners; neither Zoch's rulebook nor any listing we searched gives
# a dimension (searched 2026-11: publisher pages, shop listings), so measure a box's egg with
# calipers and set these two figures: the printed eggs (egg.py) and the bowl follow them. The eggs
# are modelled as ellipsoids of semi-axes 12 x 12 x 15.5. The bowl is sized with margin (see the
# EGG_* checks in the tests) so that eggs up to ~10 % larger still fit.
EGG_DIA = 24.0
EGG_LEN = 31.0
EGG_COUNT = 22          # 5 each of G, Y, R, B and 2 purple (docs/rules.md)
# The original pole is a wooden stick: ASSUMED 10-12 mm diameter, 180-200 mm long. We model our
# own pole (a 10 mm beech dowel, or the printed pole part) with a magnet in its foot.
POLE_DIA = 10.0
POLE_LEN = 190.0
PLA_DENSITY = 1.24       # g/cm3, solid PLA (e.g. NatureWorks Ingeo 4043D data sheet: 1.24)
# The pole's mass: the weigher takes the pole's weight off the nest's level when the pole is out
# (gulo.weigher.POLE_G = 25 g), so the pole must weigh that within the eggs' tolerance (0.5 g,
# nest.cmd_calibrate.egg_tolerance_g). PLA with the magnet is lighter (enclosure/pole_mass.py):
# a 6 mm BRASS rod cut to length goes into a bore in the pole's top, glued, under a printed plug.
NDFEB_DENSITY = (7.50, 7.65)  # g/cm3, sintered NdFeB (china-magnet.net physical data: 7.50-7.65;
                              # Courage Magnet: N35-N45 about 7.5)
BEECH_DENSITY = (0.65, 0.75)  # g/cm3, dried European beech: ASSUMED band round the 0.705 average
                              # (Keim Company wood library: "average dried weight 44 lb/ft3")
POLE_BALLAST_DIA = 6.0        # brass rod (CuZn37, BRASS_DENSITY below)
POLE_BALLAST_BORE = 6.3
POLE_BALLAST_LEN = 33.0       # bore depth from the pole's top: the longest rod (30 mm) + the plug
POLE_PLUG_H = 3.0

# --- Weighted eggs (egg.py) ---------------------------------------------------------------------
# The firmware tells eggs apart by mass (gulo.weigher.DEFAULT_MASSES: G 10, P 12, Y 14, R 16,
# B 18 g); a wooden egg weighs ~7 g. Printed eggs (100 % infill) of the box's size with a
# ballast bore closed by a plug; the ballast is cut from 10 mm BRASS rod: non-magnetic (steel
# would stick to the pole's magnet and shunt its field), 8.44 g/cm3 (CuZn37 / CW508L, Deutsches
# Kupferinstitut material data sheet), so a length of rod is a mass: 0.663 g/mm.
EGG_FLAT = 3.0           # the egg's lower tip cut flat: it prints without support, holds the plug
EGG_BORE = 10.4          # ballast bore (10 mm rod + 0.2 mm each side for glue)
EGG_TOP_WALL = 2.2       # material over the bore's top face
EGG_PLUG_H = 2.0
EGG_PLUG_FIT = 0.05      # radial interference of the printed plug: a press fit, glued
BALLAST_ROD_DIA = 10.0
BRASS_DENSITY = 8.44     # g/cm3
# A print is lighter than its solid model (gaps between lines, under-extrusion): ASSUMED down to
# 85 % of solid at 100 % infill. The ballast must fit at both ends of that range.
PRINT_FILL = (0.85, 1.0)

# --- Magnet and reed switch (pole detection) ----------------------------------------------------
# The reed stands UPRIGHT on the pole's axis, under the pole's axially magnetised magnet: the
# magnet's field then runs along the reed, one pole's flux enters the near blade and leaves by the
# far one, whatever way the pole is turned (enclosure/reed.py simulates it with magpylib;
# tests/test_enclosure_reed.py checks it, and that the old flat reed centred under the magnet
# never closes).
# Magnet: NdFeB rod 6 x 20 mm, grade N42, magnetised along its axis. Remanence of N42:
# Br 1.28-1.32 T (min-max of the grade, e.g. Arnold Magnetic Technologies' "Sintered Neodymium-
# Iron-Boron Magnets" catalogue, N42 row; the same figures in K&J Magnetics' grade table). The
# closed checks use the lowest Br, the open checks the highest.
MAGNET_DIA = 6.0
MAGNET_H = 20.0     # 6 x 10 leaves 28 AT leaning on the rim (need 20): 6 x 20 gives 45 (enclosure/reed.py)
MAGNET_BR_T = (1.28, 1.32)
MAGNET_TOL = 0.15       # radial clearance of the magnet pocket
# The magnet is captured, never glued on the surface: a 6 x 20 mm magnet is a swallowing hazard
# (EN 71-1 small-parts cylinder) and two swallowed magnets pinch through the gut. In the printed
# pole it sits in a closed cavity (pause the print above it); in a beech dowel, behind a glued
# 6 mm beech plug. MAGNET_CAPTURE is the wall under it (the foot).
MAGNET_CAPTURE = 1.6
# Reed: Littelfuse (Hamlin) MDSR-7, normally open, glass 12.70 mm long x 1.80 mm diameter, both
# maxima (Littelfuse MDSR-7 data sheet, rev. 10/09/15: "12.70mm long x 1.80mm diameter glass
# envelope", sensitivity 10-25 AT sold in bands, e.g. MDSR-7-15-20). Sensitivity is sold in
# pull-in bands measured in the maker's test coil; the band here is the one the design needs
# (15-20 AT). The data sheet gives no drop-out: ASSUMED 40 % of the band's lowest pull-in, a
# pessimistic hysteresis (the drop-out/pull-in ratio, which Standex-Meder's "reed switch magnet
# interaction" tutorial defines; enter your part's minimum drop-out if its data sheet has one).
REED_PART = "Littelfuse (Hamlin) MDSR-7, pull-in band 15-20 AT"
REED_GLASS_DIA = 1.80
REED_GLASS_LEN = 12.70
REED_PULL_IN_AT = (15.0, 20.0)
REED_DROP_OUT_AT_MIN = 0.4 * REED_PULL_IN_AT[0]
REED_TOL = 0.25         # radial clearance of the reed's bore
# The leads: overall length 40.38 mm (MDSR-7 data sheet), so each lead is (40.38 - 12.70) / 2
# = 13.84 mm; ASSUMED 0.6 mm thick (the thick end of a 1.8 mm glass reed's leads: measure yours).
# Bend them no nearer than 3 mm to the glass (RMCIP reed-switch mounting notes,
# rmcip.com/reeds/product/id/98: "distance between the glass end and a bending point should be
# 3 mm min"), round an inner radius of REED_LEAD_BEND_R (round-nose pliers' tip). The tests model
# each lead as that bent wire (components.reed_with_leads) and insert it along its path.
REED_LEAD_LEN = (40.38 - REED_GLASS_LEN) / 2
REED_LEAD_DIA = 0.6
REED_LEAD_MIN_BEND = 3.0
REED_LEAD_BEND_R = 0.5
# From the glass's end to the far side of the bent lead's horizontal run: what the tower must
# hold above and below the glass.
REED_LEAD_BEND = REED_LEAD_MIN_BEND + REED_LEAD_BEND_R + REED_LEAD_DIA

# --- Printer ----------------------------------------------------------------------------------
PRINT_BED = (256.0, 256.0, 250.0)   # x, y, z of the build volume every part must fit (Bambu P1/X1 class)

# --- Split base and lid for 220 x 220 mm beds (split.py) ----------------------------------------
# The base's footprint (240 x 250 mm) needs a 256 x 256 mm bed. For the common 220 x 220 mm bed
# (Creality Ender-3: build volume 220 x 220 x 250 mm, Creality's spec sheet) `make enclosure` also
# exports it (and the lid, below) cut in four: no cut into two pieces fits, since either half keeps
# one full side of 240 or 250 mm (tested). SPLIT_BED_MARGIN is kept free on every side of the bed (a
# skirt, the bed's clips): ASSUMED 5 mm. The seams miss every feature on the floor (reed tower,
# riser, stop, the boards' frames, tie bridges); joint blocks on the floor straddle them, each with
# an M3 bolt and nut across the seam (ISO 4762 M3 x 25, ISO 4032 nut) and a 4 x 12 mm dowel pin (ISO
# 8734, austenitic stainless A2, practically non-magnetic; the nearest is 50 mm from the reed) that
# keys the pieces in line.
SPLIT_PARTS = True              # also export base_split_1..4 and lid_split_1..4 (enclosure/out/)
SPLIT_BED = (220.0, 220.0)
SPLIT_BED_MARGIN = 5.0
SPLIT_SEAM_X = 20.0             # between the reed tower (x <= 12) and the carrier's frame (x >= 31.6)
SPLIT_SEAM_Y = -20.0            # between the tower (y >= -4) and the tie bridge at y = -40
JOINT_LEN = 24.0                # along the seam
JOINT_HALF = 9.0                # each side of the seam
JOINT_H = 12.0                  # above the floor
JOINT_HOLE_Z = FLOOR + 6.0      # axis of the bolt and the pin
JOINT_BOLT_CLEAR = 3.4          # M3 medium clearance (ISO 273)
JOINT_PIN_DIA = 4.0
JOINT_PIN_LEN = 12.0
JOINT_PIN_BORE = 4.1            # 0.05 mm a side: slides in, glued
JOINT_PIN_DEPTH = 6.5           # bore depth each side of the seam (6 mm of pin + 0.5 mm room)
JOINT_SPACING = 12.0            # bolt and pin apart along the seam
# The lid (240 x 250 mm too) is cut in four along its own seams, between the tile seats and the
# buttons (the base's seams would cut tiles). A 4 mm plate cannot hold pins: each seam carries a
# dovetail through the plate, pushed in from above and glued; each quarter keeps its own corner
# screw into the base.
LID_SEAM_X = 11.4               # between the tiles at x = 0 (|x| <= 7.2) and at 75 deg (x >= 15.5)
LID_SEAM_Y = -11.4              # between the tiles at 0/180 deg and at -15/195 deg
DOVETAIL = (6.0, 9.0, 5.0)      # root width, tip width, depth
DOVETAIL_GAP = 0.15             # per side: slides in, glued

# --- Load cell ----------------------------------------------------------------------------------
# 1 kg single-point (parallel beam) bar cell, the kind sold with HX711 kits, e.g. the "TAL220"/
# "YZC-131" style: 80 x 12.7 x 12.7 mm aluminium, two threaded holes at each end on a 15 mm pitch.
# ASSUMED: M4 holes with centres 4 mm and 19 mm from each end, and the strain-gauged flexure (the
# "binocular" holes) no closer than CELL_MOUNT_LEN to either end. Measure yours and change these:
# the tests then tell you whether the spacer and riser still clear the flexure.
CELL_L = 80.0
CELL_W = 12.7
CELL_H = 12.7
CELL_HOLE_PITCH = 15.0
CELL_HOLE_END = 4.0     # first hole centre from the end
CELL_MOUNT_LEN = 25.0   # end block (solid aluminium) length: the flexure lies between the blocks
CELL_SCREW_CLEAR = 4.5  # M4 clearance hole (ISO 273 medium)
CELL_CAPACITY_G = 1000.0
# M4 countersunk screws (ISO 10642, head 8.96 mm max, 90 deg): flush inside the bowl and under
# the base, and the part around the hole keeps its full section (no counterbore undercut).
CSK_DIA = 9.0
CSK_DEPTH = (CSK_DIA - CELL_SCREW_CLEAR) / 2   # 90 deg cone
# The spacer (under the bowl) and the base's riser bear on the end blocks only, stopping
# FLEX_CLEAR short of the flexure (tested >= 1 mm): anything touching it would steal load.
FLEX_CLEAR = 1.5
PAD_LEN = CELL_MOUNT_LEN - FLEX_CLEAR
# The cell sits beside the bowl axis (y offset) so that the reed switch can sit right under the
# pole. Single-point cells are built for off-centre platform loads, the 16 mm offset is well
# inside the usual 150 x 150 mm platform rating of a 1 kg cell.
CELL_Y = 16.0
CELL_RISER = 5.0        # riser block under the fixed end: room for the free end to deflect
CELL_Z0 = FLOOR + CELL_RISER          # underside of the cell
CELL_TOP = CELL_Z0 + CELL_H

# Overload stops: four M4 x 12 set screws (ISO 4026, flat point, 2 mm hex socket) turned into
# bosses under the bowl's floor, 90 deg apart round its axis, each over a printed pad on the base
# floor: the corner stops load-cell makers ask for under a platform (A&D LCB04 manual, "Overload
# precautions": a stopper under the load end and corner stoppers, each touching at 100 % of full
# scale on its corner). Each screw's hex socket faces up inside the bowl, flush with its floor: a
# straight 2 mm hex key reaches it from above with the bowl on (tests/enclosure/test_enclosure_
# assembly.py). About 480 g rest on the 1 kg cell; a child leaning on the rim must not bend it past
# its safe overload (120 % of rated capacity, TAL220 data sheet, HT Sensor Technology: "safe
# overload 120 % R.C., ultimate overload 150 % R.C."). The TAL220 data sheet gives no deflection:
# from its rated output the cell deflects 0.0125-0.15 mm at rated load (stop.py), a range too wide
# for any one gap, so the stops are SET under load: with STOP_SET_LOAD_G on the cell (the full nest
# and a weight) each screw is turned down until the nest's reading starts to fall (ASSEMBLY.md step
# 10). Before that, a feeler gauge sets all four level at STOP_PRESET_GAP with the bowl empty.
# STOP_GAP is the gap as modelled (the screws at their nominal depth): the bowl's travel the
# clearance tests allow.
STOP_GAP = 0.5
STOP_R = 52.0                  # the stops' radius round the bowl's axis
STOP_ANGLES = (0.0, 90.0, 180.0, 270.0)
STOP_BOSS_DIA = 10.0
STOP_BOSS_H = 6.0              # below the bowl's underside: 10 mm of thread with the floor
STOP_SCREW = 4.0
STOP_SCREW_LEN = 12.0
STOP_PILOT = 3.3        # M4 into PLA: a 3.3 mm pilot (the ISO 273 tap drill) cuts its own thread
STOP_PAD_DIA = 10.0
STOP_PITCH = 0.7        # M4 coarse thread (ISO 261)
STOP_KEY_R = 2.0        # a 2 mm hex key's blade (1.15 mm across corners) and room round it
STOP_PRESET_GAP = 0.10  # feeler gauge blade: all four stops level, none touching at rest
STOP_SET_LOAD_G = 1100.0   # total on the cell when each stop is set to touch: 110 % of rated
CELL_SAFE_OVERLOAD = 1.2   # x rated capacity (TAL220 data sheet)
NEST_REST_G = 500.0        # bowl, spacer, pole, 22 eggs: at most (test_load_uses_at_most_half_the_cell)
HAND_PRESS_G = 300.0       # ASSUMED: a child's hand resting on the rim while taking an egg


def stop_xys():
    """(x, y) of the four overload stops."""
    return [(STOP_R * math.cos(math.radians(a)), STOP_R * math.sin(math.radians(a))) for a in STOP_ANGLES]


CELL_RATED_OUTPUT = 1.0e-3   # V/V at rated load (TAL220 data sheet: 1.0 +- 0.15 mV/V)
GAUGE_FACTOR = 2.0      # constantan foil gauges (HBM "The Wheatstone Bridge Circuit": k ~ 2)

# --- Bowl (the nest) ----------------------------------------------------------------------------
BOWL_WALL = 2.4
BOWL_FLOOR = 4.0        # 3 would leave 0.75 mm under the M4 countersinks
BOWL_R_FLOOR = 68.0     # inner radius at the floor
BOWL_DEPTH = 52.0       # inner depth, floor to rim
BOWL_DRAFT_DEG = 8.0    # wall leans out: eggs slide to the centre, prints without support
# The spacer (spacer.py) between the cell's free end and the bowl: 6 mm makes room under the bowl
# for the upright reed with a 3.5 mm lead bend at both ends (REED_Z_TOP below).
BOWL_STANDOFF_H = 6.0
BOWL_Z0 = CELL_TOP + BOWL_STANDOFF_H  # underside of the bowl floor
BOWL_FLOOR_TOP = BOWL_Z0 + BOWL_FLOOR
BOWL_RIM_Z = BOWL_FLOOR_TOP + BOWL_DEPTH
_TAN = math.tan(math.radians(BOWL_DRAFT_DEG))
BOWL_R_RIM = BOWL_R_FLOOR + BOWL_DEPTH * _TAN
# Outer surface offset normal to the drafted wall by BOWL_WALL (so the wall is BOWL_WALL thick).
BOWL_WALL_DR = BOWL_WALL / math.cos(math.radians(BOWL_DRAFT_DEG))


def bowl_inner_r(z):
    """Inner radius of the bowl at height z (between its floor top and rim)."""
    return BOWL_R_FLOOR + (z - BOWL_FLOOR_TOP) * _TAN


def bowl_outer_r(z):
    """Outer radius at height z: the outer cone continued down to the bowl's underside."""
    return bowl_inner_r(z) + BOWL_WALL_DR


# Pole socket: a shallow cup, NOT a deep hole: in the real game the pole must fall when the eggs
# are disturbed. The foot only locates the pole over the reed switch.
SOCKET_TOL = 0.3        # radial clearance pole/socket (wood swells; printed holes shrink)
SOCKET_BORE = POLE_DIA + 2 * SOCKET_TOL
# 3 mm, not 5: in a socket deeper than sqrt(bore^2 - d^2) = 3.5 mm a tilted pole touches the lip
# and the opposite wall at once and friction holds it there (pole_socket.py: a 5 mm socket jams at
# 8-19 deg for any friction above 0.02); at 3 mm that wedge cannot form and a knocked pole falls.
SOCKET_DEPTH = 3.0
SOCKET_WALL = 2.4
SOCKET_OUTER = SOCKET_BORE + 2 * SOCKET_WALL

# --- Base and lid -------------------------------------------------------------------------------
BASE_W = 240.0          # x
BASE_D = 250.0          # y: the base fits a 256 x 256 mm bed (Bambu, Prusa XL, ...)
BASE_Y0 = -135.0        # front edge (buttons in front, USB at the back)
BASE_CORNER_R = 12.0
LID_T = 4.0
BASE_H = 66.0           # floor underside to lid underside
LID_Z0 = BASE_H
LID_TOP = BASE_H + LID_T
LID_LIP_H = 4.0         # locating lip under the lid, inside the base wall
LID_LIP_T = 2.0
LID_LIP_GAP = 0.3       # clearance lip / base wall
# Radial gap bowl / lid opening at the lid's top face, its narrowest: the bowl's draft widens it
# downwards, so a crumb that gets in falls through to the floor and cannot wedge; what it lands on
# is > 3 mm from the bowl (tests/test_enclosure_bowl_gap.py, at rest and down on the stop).
LID_OPENING_GAP = 3.0
LID_OPENING_R = bowl_outer_r(LID_TOP) + LID_OPENING_GAP
# Corner screw bosses (M3 x 10 self-tapping into a 2.5 mm pilot).
BOSS_DIA = 9.0
BOSS_PILOT = 2.5
BOSS_INSET = 14.0       # boss centre from the outer walls (clear of the lid's lip)
LID_SCREW_CLEAR = 3.4
BOSS_DEPTH = 12.0       # pilot hole depth

# --- LED path -----------------------------------------------------------------------------------
# 23 path tiles + deck + status = board.LED_COUNT pixels. The ring is too tight for a 30/m strip
# and too loose for a 60/m one, so we use single WS2812B pixels on 10 mm round PCBs (sold as
# chainable "WS2812B 5050 with heatsink PCB"), wired in one daisy chain under the lid.
LED_RING_R = 94.0
LED_PATH_COUNT = 23     # checked against firmware/gulo/board.py by the tests
LED_PCB_DIA = 10.0
LED_PCB_H = 3.0         # PCB 1.6 + LED 1.6 (ASSUMED; 3.2 with solder)
LED_TOL = 0.2           # radial clearance in its holder ring
LED_HOLDER_WALL = 1.8
LED_HOLDER_H = 3.0
TILE = 14.0             # square diffuser tile, printed in natural PETG/PLA
TILE_T = 2.0
TILE_TOL = 0.2          # per side
TILE_SEAT_DEPTH = 2.0   # tile sits flush with the lid top
LIGHT_HOLE = 8.0        # round light opening under the tile: the 5 x 5 mm LED shows through,
                        # the 10 mm PCB bears on a 1 mm ring around it
# The lid prints upside down: the tile seat's floor is then a 14.4 mm bridge over the seat. With
# the light hole cut through it the bridge's lines end free at the hole's rim and droop; a layer
# left over the light hole (a membrane) makes it a bridge anchored on all four walls, 14.4 mm
# < 20 mm (enclosure/bridges.py, tests/test_enclosure_bridges.py). The 0.2 mm of light PLA
# diffuses like the tile; cut it out with a knife for more light.
LIGHT_MEMBRANE = 0.2     # one 0.2 mm layer
LED_PATH_START_DEG = -60.0  # tile 1; the path runs counter-clockwise seen from above
# Deck and status pixels: their own tiles at the front corners.
DECK_XY = (-92.0, -114.0)
STATUS_XY = (92.0, -114.0)

# --- Buttons ------------------------------------------------------------------------------------
# 16 mm panel-mount momentary push buttons (hole 16 mm, M16 thread, panel <= 8 mm, body ~25 mm
# below the panel with the solder lugs), in the children's colours. ASSUMED body dia 16 mm.
BUTTON_DIA = 16.0
BUTTON_TOL = 0.25       # radial
BUTTON_BODY_DEPTH = 28.0
BUTTON_Y = -116.0
# Left to right on the front edge; names match board.PINS. REVEAL in the middle, MENU apart.
BUTTONS = (
    ("BUTTON_GREEN", -60.0),
    ("BUTTON_YELLOW", -35.0),
    ("BUTTON_REVEAL", 0.0),
    ("BUTTON_RED", 35.0),
    ("BUTTON_BLUE", 60.0),
)
BUTTON_MENU_XY = (95.0, -90.0)

# --- Electronics pockets ------------------------------------------------------------------------
# ESP32-DevKitC V4: ASSUMED PCB 54.4 x 27.9 mm (the commonly quoted outline; Wokwi's board model,
# wokwi-boards esp32-devkit-c-v4, is 27.9 x 56.6 with the USB socket, header rows 1.22 mm from the
# long edges). Header pins under the board ~8.5 mm, module + USB ~6 mm above.
ESP_L = 54.4
ESP_W = 27.9
ESP_PCB = 1.6
ESP_BELOW = 8.5
ESP_ABOVE = 6.0
ESP_TOL = 0.3           # per side
# The DevKitC plugs, pins down, into two rows of female headers on a CARRIER perfboard: every
# wire is soldered to the carrier (or plugs into its headers), none to the DevKitC's pins, and the
# board lifts out for flashing elsewhere. The carrier is a standard 50 x 70 mm perfboard (2.54 mm
# grid), on 3 mm ribs (its solder joints underneath), USB end against the back wall, the DevKitC
# at its +x side; the free 19 mm at its -x side carries the level shifter, the resistors, the
# capacitors and the harness header (docs/enclosure/perfboard.png).
CARRIER = (50.0, 70.0)  # x, y
CARRIER_PCB = 1.6
CARRIER_STANDOFF = 3.0
CARRIER_TOL = 0.3
CARRIER_RIGHT = 3.0     # carrier edge beyond the DevKitC's +x edge
# Female header body: 2.54 mm pitch, 8.5 mm tall (the common "2.54 mm female header" strip);
# the DevKitC's 8.5 mm pins seat fully in it.
FEMALE_HEADER_H = 8.5
ESP_POST = CARRIER_STANDOFF + CARRIER_PCB + FEMALE_HEADER_H   # floor to the DevKitC's underside
# The harness plugs into a row of RIGHT-ANGLE male headers along the carrier's -x edge: the
# Dupont female housings (2.54 x 2.54 x 14 mm, the crimp housing's standard length) lie flat,
# pointing -x, 1.3 mm over the carrier (the header's plastic), plus 5 mm for the wires' bend. The
# carrier's frame is low on that side (at the carrier's top): the wires' way out, under the bowl.
DUPONT = (2.54, 2.54, 14.0)
WIRE_BEND = 5.0
HARNESS_PINS = 20       # the harness header's length in pins (every signal + 3V3/5V/GND)
RAIL_W = 2.4            # ribs and rails under the boards
FRAME_WALL = 2.0
FRAME_ABOVE = 2.0       # frame top above the board's top face
PIN_ROW_W = 2.6         # envelope of one header row (0.64 mm pins, 2.54 mm plastic)
# The micro-USB socket (7.5 x 2.5 mm) overhangs the PCB's USB edge; ASSUMED up to 1.5 mm. It
# pokes into the back wall's USB hole, which the fit tests check.
ESP_USB_SOCKET = (8.0, 1.5, 3.0)   # x, overhang y, z above the PCB
# USB at the back wall: the micro-USB plug's overmold is ~11 x 8 mm.
USB_HOLE_W = 13.0
USB_HOLE_H = 10.0
# Placement: the board lies along y with its USB end against the back wall.
ESP_X = 67.0           # the carrier frame's +x side clears the foot boss at (94, 89)
ESP_USB_GAP = ESP_TOL   # board edge to inner back wall
# HX711 breakout: ASSUMED 38 x 21 mm (the "large" green board, e.g. ShillehTek's listing). Smaller
# boards (34 x 21, 24 x 16) go in but rattle: set HX_L / HX_W to yours.
HX_L = 38.0
HX_W = 21.0
HX_PCB = 1.6
HX_BELOW = 3.0          # solder joints
HX_ABOVE = 9.0          # header pins and chip
HX_TOL = 0.3
HX_XY = (-70.0, 60.0)  # long side along x
HX_POST = 5.0           # rail height: solder joints clear the floor

# --- Reed tower ---------------------------------------------------------------------------------
# A block under the socket with an upright bore for the reed; the upper lead bends over into a
# groove across the tower's top, the lower one leaves through a slot at the floor.
REED_GAP = 2.0          # tower top to bowl underside (>= 1 mm required)
TOWER_W = 8.0           # y
TOWER_L = 24.0          # x
REED_Z_TOP = BOWL_Z0 - REED_GAP   # top of the tower
REED_BORE = REED_GLASS_DIA + 2 * REED_TOL
REED_GLASS_TOP = REED_Z_TOP - REED_LEAD_BEND
REED_GLASS_BOTTOM = REED_GLASS_TOP - REED_GLASS_LEN
LEAD_GROOVE_W = 1.2     # grooves for the 0.5-0.6 mm leads
LEAD_GROOVE_D = 1.2

# --- Feet ---------------------------------------------------------------------------------------
# Printed TPU feet pressed into the base underside; their pads keep the nest from sliding.
FOOT_DIA = 18.0
FOOT_H = 4.0
FOOT_PEG_DIA = 6.0
FOOT_PEG_H = 2.8
FOOT_TOL = 0.15         # radial clearance of the peg
FOOT_BOSS_DIA = 14.0    # floor thickening above each foot
FOOT_BOSS_H = 3.0
FOOT_INSET = 26.0       # foot centre from the outer walls
FOOT_HOLE_DEPTH = 3.0

# --- Cable routing ------------------------------------------------------------------------------
# Zip-tie bridges on the floor: a block with a 4 x 2 mm tunnel for a 3.6 mm tie.
TIE_BRIDGE = (12.0, 8.0, 5.0)  # x, y, z
TIE_SLOT = (12.0, 4.0, 2.0)
TIE_BRIDGES_XY = ((-60.0, -40.0), (60.0, 28.0), (-20.0, 95.0), (30.0, -95.0))


def foot_centres():
    x = BASE_W / 2 - FOOT_INSET
    y0, y1 = BASE_Y0 + FOOT_INSET, BASE_Y0 + BASE_D - FOOT_INSET
    return [(-x, y0), (x, y0), (-x, y1), (x, y1)]


def boss_centres():
    x = BASE_W / 2 - BOSS_INSET
    y0, y1 = BASE_Y0 + BOSS_INSET, BASE_Y0 + BASE_D - BOSS_INSET
    return [(-x, y0), (x, y0), (-x, y1), (x, y1)]


def led_path_xy():
    """Centres of the 23 path tiles, tile 1 first, counter-clockwise seen from above."""
    pts = []
    for i in range(LED_PATH_COUNT):
        a = math.radians(LED_PATH_START_DEG + i * 360.0 / (LED_PATH_COUNT + 1))
        pts.append((LED_RING_R * math.cos(a), LED_RING_R * math.sin(a)))
    return pts


def led_xy():
    """All LED tile centres in strip order: path tiles, deck, status (as in board.py)."""
    return led_path_xy() + [DECK_XY, STATUS_XY]


def button_xy():
    """(name, (x, y)) of every button."""
    return [(n, (x, BUTTON_Y)) for n, x in BUTTONS] + [("BUTTON_MENU", BUTTON_MENU_XY)]


def esp_box():
    """(xmin, ymin, zmin, xmax, ymax, zmax) of the DevKitC envelope (pins to module top)."""
    ymax = BASE_Y0 + BASE_D - WALL - ESP_USB_GAP
    z_pcb = FLOOR + ESP_POST
    return (ESP_X - ESP_W / 2, ymax - ESP_L, z_pcb - ESP_BELOW,
            ESP_X + ESP_W / 2, ymax, z_pcb + ESP_PCB + ESP_ABOVE)


def carrier_box():
    """(xmin, ymin, zmin, xmax, ymax, zmax) of the carrier perfboard."""
    ymax = BASE_Y0 + BASE_D - WALL - CARRIER_TOL
    xmax = ESP_X + ESP_W / 2 + CARRIER_RIGHT
    z0 = FLOOR + CARRIER_STANDOFF
    return (xmax - CARRIER[0], ymax - CARRIER[1], z0, xmax, ymax, z0 + CARRIER_PCB)


def harness_box():
    """The Dupont housings lying on the right-angle harness header along the carrier's -x edge
    (its pins one grid step in from the edge), with the wires' bend beyond them."""
    x0, _y0, _z0, _x1, y1, z1 = carrier_box()
    xa = x0 + 2.54 + 1.27                   # the housings' back face, at the header's bend
    ya = y1 - 3.0 - HARNESS_PINS * 2.54
    return (xa - DUPONT[2] - WIRE_BEND, ya, z1 + 1.3, xa, ya + HARNESS_PINS * 2.54, z1 + 1.3 + DUPONT[0])


def hx_box():
    """Envelope of the HX711 board resting on its rails."""
    x, y = HX_XY
    z_pcb = FLOOR + HX_POST
    return (x - HX_L / 2, y - HX_W / 2, z_pcb - HX_BELOW,
            x + HX_L / 2, y + HX_W / 2, z_pcb + HX_PCB + HX_ABOVE)
