"""The carrier perfboard's layout (where each part of the schematic sits) and its picture.

Positions are on the perfboard's 2.54 mm grid, in columns from the DevKitC's left header row
(col 0; its right row is col 10: the DevKitC V4's rows are 25.4 mm apart) and rows from the
carrier's back edge (row 0, the USB end). The free strip left of the DevKitC carries the small
parts and the right-angle harness header (col -7, params.harness_box); the front strip below
the DevKitC the buzzer and the heartbeat LED. R3 and C2 are not on the carrier: the schematic
puts them at the first pixel. tests/test_schematic.py checks the layout against the carrier and
the netlist (every net that leaves the carrier has a harness pin).
"""
from . import params as P
from . import schematic

PITCH = 2.54
ESP_COLS = (0, 10)
ESP_ROWS = 19           # pins per DevKitC header row
# ref: (col, row, width in holes, height in holes)
LAYOUT = {
    "J1": (0, 1, 1, ESP_ROWS),          # female header, DevKitC left row
    "J2": (10, 1, 1, ESP_ROWS),         # female header, DevKitC right row
    "J3": (-7, 1, 1, P.HARNESS_PINS),   # right-angle harness header
    "U2": (-5, 1, 4, 3),                # SOT-23-5 on a 2 x 3 DIP adapter
    "C1": (-5, 5, 2, 1),
    "R2": (-5, 7, 4, 1),
    "R1": (-5, 9, 4, 1),
    "R4": (-5, 11, 4, 1),
    "R5": (-5, 13, 4, 1),
    "R6": (-5, 15, 4, 1),
    "Q1": (-5, 17, 3, 1),
    "D1": (-2, 17, 2, 1),               # DNP: its holes stay free for a magnetic buzzer
    "R7": (-5, 19, 4, 1),
    "D2": (-5, 21, 2, 1),
    "BZ1": (2, 21, 5, 5),               # 12 mm piezo, in front of the DevKitC
}
ON_CARRIER = {"U1"} | set(LAYOUT)
# The harness header's pins, in order from the back: every net that leaves the carrier.
HARNESS = ["+5V", "GND", "DATA_5V", "+3V3", "GND", "GPIO18 HX711_SCK", "GPIO19 HX711_DOUT",
           "GPIO27 REED"] + [schematic.gpio_net(n) for n in schematic.BUTTONS] + ["GND", "+5V", "GND"]


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
        value = schematic.PARTS.get(ref, ("header", ""))[0]
        ax.text(c + (w - 1) / 2, -(r + (h - 1) / 2), f"{ref}\n{value}" if h > 1 or w > 3 else ref,
                ha="center", va="center", fontsize=7)
    for i, net in enumerate(HARNESS):
        ax.text(-7.8, -(1 + i), net.split(" ")[-1], ha="right", va="center", fontsize=6)
    ax.set_xlim(c0 - 6, c1 + 1)
    ax.set_ylim(-r1 - 1, 1.5)
    ax.set_aspect("equal")
    ax.set_title(f"carrier perfboard {P.CARRIER[0]:g} x {P.CARRIER[1]:g} mm, component side "
                 "(back wall at the top)", fontsize=9)
    ax.axis("off")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
