"""The carrier perfboard: where each part of the circuit sits, which hole each of its pins is in,
and the point-to-point wires on the solder side that join them, all from enclosure/circuit.py.

Positions are on the perfboard's 2.54 mm grid, in columns from the DevKitC's left header row
(col 0; its right row is col 10: the DevKitC V4's rows are 25.4 mm apart) and rows from the
carrier's back edge (row 0, the USB end). The free strip left of the DevKitC carries the small
parts and the right-angle harness header J3 (col -7, params.harness_box); the front strip below
the DevKitC the buzzer and the heartbeat LED. R3 and C2 are not on the carrier: they sit at the
first pixel. tests/enclosure/test_circuit.py checks that the wires join exactly the circuit's
nets, and test_schematic.py the layout against the carrier.
"""
from . import circuit
from . import params as P

PITCH = 2.54
ESP_COLS = (0, 10)
ESP_ROWS = 19           # pins per DevKitC header row
# ref: (col, row, width in holes, height in holes)
LAYOUT = {
    "J1": (0, 1, 1, ESP_ROWS),          # female header, DevKitC left row
    "J2": (10, 1, 1, ESP_ROWS),         # female header, DevKitC right row
    "J3": (-7, 1, 1, P.HARNESS_PINS),   # right-angle harness header
    "U2": (-5, 1, 4, 7),                # SN74AHCT125N, DIP-14: pins 1-7 down col -5, 8-14 up col -2
    "C1": (-5, 9, 2, 1),
    "R2": (-5, 11, 4, 1),
    "R1": (-5, 13, 4, 1),
    "R4": (-5, 15, 4, 1),
    "R5": (-5, 17, 4, 1),
    "R6": (-5, 19, 4, 1),
    "Q1": (-5, 21, 3, 1),               # TO-92: C, B, E
    "D1": (-1, 21, 2, 1),               # DNP: its holes stay free for a magnetic buzzer
    "R7": (-5, 23, 4, 1),
    "D2": (-5, 25, 2, 1),
    "BZ1": (2, 21, 5, 5),               # 12 mm piezo, in front of the DevKitC
}
ON_CARRIER = {"U1"} | set(LAYOUT)
U2_PINS = {1: "OE", 2: "A", 3: "Y", 4: "2OE", 5: "2A", 6: "2Y", 7: "GND", 8: "3Y", 9: "3A", 10: "3OE",
           11: "4Y", 12: "4A", 13: "4OE", 14: "VCC"}   # TI SN74AHCT125 data sheet, N package
# The harness header's pins, in order from the back (circuit.harness).
HARNESS = [n if n else "spare" for n in circuit.j3_pins()]


def pin_holes():
    """{(part, pin): (col, row)} of every pin soldered on the carrier."""
    out = {}
    for name, holes in circuit.devkit_holes().items():
        for k, hole in enumerate(holes):
            out[("U1", name if len(holes) == 1 else f"{name}#{k}")] = hole
    for ref, (c, r, w, h) in LAYOUT.items():
        if ref == "U2":
            for n, name in U2_PINS.items():
                out[("U2", name)] = (c, r + n - 1) if n <= 7 else (c + w - 1, r + 14 - n)
        elif ref == "J3":
            for k in range(1, h + 1):
                out[("J3", str(k))] = (c, r + k - 1)
        elif ref == "Q1":
            for i, name in enumerate(("C", "B", "E")):
                out[("Q1", name)] = (c + i, r)
        elif ref in ("D1", "D2"):
            out[(ref, "K")], out[(ref, "A")] = (c, r), (c + w - 1, r)
        elif ref == "BZ1":
            out[("BZ1", "1")], out[("BZ1", "2")] = (c, r + 2), (c + w - 1, r + 2)
        elif ref[0] in "RC":
            out[(ref, "1")], out[(ref, "2")] = (c, r), (c + w - 1, r)
    return out


def _u1_hole(pin, holes):
    """The DevKitC pin's hole (a GND has three: the first)."""
    return holes.get(("U1", pin)) or holes.get(("U1", f"{pin}#0"))


def wires():
    """[(net, hole, hole)]: the solder side's point-to-point wires, each net's carrier pins joined
    in a chain from the back of the board to the front."""
    holes = pin_holes()
    out = []
    for net, members in circuit.nets().items():
        pts = []
        for part, pin in members:
            if part == "U1":
                h = _u1_hole(pin, holes)
            else:
                h = holes.get((part, pin))
            if h is not None and h not in pts:
                pts.append(h)
        pts.sort(key=lambda h: (h[1], h[0]))
        out += [(net, a, b) for a, b in zip(pts, pts[1:])]
    return out


def carrier_cols():
    """(first, last) column of holes on the carrier, from its edges and the DevKitC's place."""
    x0, _y0, _z0, x1, _y1, _z1 = P.carrier_box()
    left_row = P.esp_box()[0] + 1.22 - x0        # the DevKitC's left pin row from the carrier's edge
    first = -int((left_row - PITCH / 2) // PITCH)
    last = int((x1 - x0 - left_row - PITCH / 2) // PITCH)
    return first, last


def carrier_rows():
    return 0, int((P.CARRIER[1] - PITCH / 2) // PITCH) - 1


def cells(ref):
    c, r, w, h = LAYOUT[ref]
    return {(c + i, r + j) for i in range(w) for j in range(h)}


def esp_cells():
    """Holes under the DevKitC's body, between its header rows (only the headers go there)."""
    return {(c, r) for c in range(ESP_COLS[0] + 1, ESP_COLS[1]) for r in range(1, 1 + ESP_ROWS)}


def draw(path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    c0, c1 = carrier_cols()
    r0, r1 = carrier_rows()
    fig, ax = plt.subplots(figsize=(6.5, 8), dpi=90)
    for c in range(c0, c1 + 1):
        for r in range(r0, r1 + 1):
            ax.plot(c, -r, ".", color="0.75", ms=3)
    ax.add_patch(Rectangle((ESP_COLS[0] - 0.6, -ESP_ROWS - 0.6), ESP_COLS[1] + 1.2, ESP_ROWS + 1.2,
                           fill=False, ls="--", color="tab:blue"))
    ax.text(5, -10, "U1 ESP32-DevKitC\n(plugs in, pins down;\nUSB to the back)", ha="center",
            color="tab:blue")
    for ref, (c, r, w, h) in LAYOUT.items():
        ax.add_patch(Rectangle((c - 0.4, -(r + h - 1) - 0.4), w - 0.2, h - 0.2, color="tab:orange",
                               alpha=0.5))
        value = circuit.PARTS.get(ref, ("header", "", ""))[0]
        ax.text(c + (w - 1) / 2, -(r + (h - 1) / 2), f"{ref}\n{value}" if h > 1 or w > 3 else ref,
                ha="center", va="center", fontsize=7)
    for i, net in enumerate(HARNESS):
        ax.text(-7.8, -(1 + i), f"{i + 1} {net.split(' ')[-1]}", ha="right", va="center", fontsize=6)
    colours = {}
    for net, (ca, ra), (cb, rb) in wires():   # solder side: drawn as seen through the board
        colour = colours.setdefault(net, f"C{len(colours) % 10}")
        ax.plot([ca, ca, cb], [-ra, -rb, -rb], "-", lw=0.9, color=colour, alpha=0.8)
    for (part, pin), (c, r) in pin_holes().items():
        if part not in ("J1", "J2", "J3") and not (part == "U1" and "#" in pin) and part != "U1":
            ax.text(c + 0.15, -r + 0.25, pin, fontsize=4.5, color="0.2")
    for name, holes in circuit.devkit_holes().items():
        if name[4:] in {str(g) for g in circuit.board.PINS.values()} or name in ("3V3", "5V", "GND"):
            for c, r in holes:
                ax.text(c + (0.4 if c else -0.4), -r, name.replace("GPIO", "IO"), fontsize=4.5,
                        ha="left" if c else "right", va="center", color="tab:blue")
    ax.set_xlim(c0 - 6, c1 + 1)
    ax.set_ylim(-r1 - 1, 1.5)
    ax.set_aspect("equal")
    ax.set_title(f"carrier perfboard {P.CARRIER[0]:g} x {P.CARRIER[1]:g} mm, component side "
                 "(back wall at the top); lines: wires on the solder side, one colour a net", fontsize=8)
    ax.axis("off")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
