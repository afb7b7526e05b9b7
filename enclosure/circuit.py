"""The nest's circuit, described once: its parts, its nets (from firmware/gulo/board.py, the one
pin map), where each part sits (on the carrier perfboard, or off it at the end of a harness
wire), the harness header J3's pins, the DevKitC's header positions and the parts' order codes.

Everything drawn or listed about the wiring is generated from here: the schematic's netlist
(schematic.py), the harness diagram (wiring.py, WireViz, drawn to J3's pins), the carrier's
layout with its point-to-point wires and pin names (perfboard.py) and the electronics rows of
BOM.md (bom_table). tests/enclosure/test_circuit.py fails when any two disagree.

Why each part, with its source: schematic.py's docstring.
"""
from gulo import board

BULK_UF = 4.7

# ref: (value, what it is for, where it sits). Where: "carrier" (soldered on the perfboard),
# "pixel" (at the first LED pixel, in heat-shrink), or the name of the off-carrier place.
PARTS = {
    "U1": ("ESP32-DevKitC V4", "ESP32-WROOM-32 only: on WROVER boards GPIO16/17 drive the PSRAM", "carrier"),
    "U2": ("74AHCT125N", "3.3 V -> 5 V buffer for the LED data: gate 1 of the quad (DIP-14)", "carrier"),
    "U3": ("HX711 module", "VDD tied to VCC (3V3) on the module; 80 SPS optional (HARDWARE.md)", "base"),
    "LC1": ("load cell 1 kg", "TAL220 class, 1 mV/V, to U3", "base"),
    "R1": ("10k", "reed pull-up", "carrier"),
    "R2": ("100k", "shifter input pull-down (GPIO16 floats at boot)", "carrier"),
    "R3": ("330", "data series resistor at the first pixel's DIN", "pixel"),
    "R4": ("1k", "buzzer transistor base", "carrier"),
    "R5": ("10k", "base pull-down", "carrier"),
    "R6": ("1k", "piezo bleed", "carrier"),
    "R7": ("1k", "heartbeat LED", "carrier"),
    "C1": ("100n", "U2 decoupling", "carrier"),
    "C2": (f"{BULK_UF:g}u", "bulk across the first pixel's 5V/GND (USB inrush limit)", "pixel"),
    "Q1": ("BC337", "NPN, buzzer driver", "carrier"),
    "BZ1": ("piezo", "passive piezo 12 mm, on the carrier", "carrier"),
    "D1": ("1N4148 DNP", "flyback: fit only for a magnetic buzzer", "carrier"),
    "D2": ("LED", "heartbeat, 3 mm red, on the carrier", "carrier"),
    "SW1": ("reed", "Littelfuse MDSR-7, N.O., in the tower", "base"),
    "LED1": ("WS2812B x 25", "the strip: path 1-23, deck, status", "lid"),
    "J1": ("female header 1x19", "the DevKitC's left pin row", "carrier"),
    "J2": ("female header 1x19", "the DevKitC's right pin row", "carrier"),
    "J3": ("right-angle header 1x20", "the harness: every wire that leaves the carrier", "carrier"),
}
BUTTONS = [name for name in board.PINS if name.startswith("BUTTON_")]
for _i, _name in enumerate(BUTTONS):
    PARTS[f"SW{_i + 2}"] = ("button", _name.split("_", 1)[1].lower(), "lid")


def gpio_net(name):
    return f"GPIO{board.PINS[name]} {name}"


# What each signal of the pin map drives: (part, pin) on its net, besides the DevKitC's GPIO.
SIGNAL_LOADS = {
    "REED": [("R1", "2"), ("SW1", "1")],
    "HX711_SCK": [("U3", "SCK")],
    "HX711_DOUT": [("U3", "DT")],
    "LEDS": [("U2", "A"), ("R2", "1")],
    "BUZZER": [("R4", "1")],
    "ONBOARD_LED": [("R7", "1")],
}
for _i, _name in enumerate(BUTTONS):
    SIGNAL_LOADS[_name] = [(f"SW{_i + 2}", "1")]


# The harness: every wire that leaves the carrier, in J3's pin order (pin 1 at the back): (net,
# far part, far pin, wire colour). One ground return per device; the six buttons share one,
# chained from button to button on the lid (BUTTON_GND_CHAIN). Unused pins of J3 stay empty.
def harness():
    wires = [("+3V3", "U3", "VCC", "RD"), ("GND", "U3", "GND", "BK"),
             (gpio_net("HX711_DOUT"), "U3", "DT", "YE"), (gpio_net("HX711_SCK"), "U3", "SCK", "GN"),
             (gpio_net("REED"), "SW1", "1", "WH"), ("GND", "SW1", "2", "BK"),
             ("+5V", "LED1", "VDD", "RD"), ("GND", "LED1", "GND", "BK"), ("DATA_5V", "R3", "1", "GN")]
    colours = {"BUTTON_REVEAL": "WH", "BUTTON_GREEN": "GN", "BUTTON_YELLOW": "YE",
               "BUTTON_RED": "RD", "BUTTON_BLUE": "BU", "BUTTON_MENU": "GY"}
    for i, name in enumerate(BUTTONS):
        wires.append((gpio_net(name), f"SW{i + 2}", "1", colours[name]))
    wires.append(("GND", "SW2", "2", "BK"))
    return wires


HARNESS_PINS = 20     # J3's length (params.HARNESS_PINS: the housings' room in the base)
# On the lid the buttons' GND pins are chained: J3 -> SW2.2 -> SW3.2 -> ... -> SW7.2.
BUTTON_GND_CHAIN = [(f"SW{i + 2}", "2") for i in range(len(BUTTONS))]
# On the HX711 module: VDD (the digital side's supply, SparkFun SEN-13879 brings it out) tied to
# VCC, so DOUT swings to 3V3 (SparkFun's HX711 hookup guide).
MODULE_JUMPERS = [(("U3", "VCC"), ("U3", "VDD"))]


def j3_pins():
    """[net or None] of J3's pins 1..HARNESS_PINS."""
    nets_ = [w[0] for w in harness()]
    return nets_ + [None] * (HARNESS_PINS - len(nets_))


def nets():
    """{net name: [(part, pin), ...]}: every net of the nest's electronics, J3's pins included."""
    out = {}
    for name, gpio in board.PINS.items():
        out[gpio_net(name)] = [("U1", f"GPIO{gpio}")] + SIGNAL_LOADS[name]
    out["+5V"] = [("U1", "5V"), ("U2", "VCC"), ("U2", "2OE"), ("U2", "3OE"), ("U2", "4OE"), ("C1", "1"),
                  ("C2", "1"), ("LED1", "VDD"), ("BZ1", "1"), ("R6", "1"), ("D1", "K")]
    out["+3V3"] = [("U1", "3V3"), ("R1", "1"), ("U3", "VCC"), ("U3", "VDD")]
    # U2's unused gates: outputs off (OE high), inputs tied (a CMOS input must not float)
    out["GND"] = [("U1", "GND"), ("U2", "GND"), ("U2", "OE"), ("U2", "2A"), ("U2", "3A"), ("U2", "4A"),
                  ("C1", "2"), ("C2", "2"), ("R2", "2"), ("R5", "2"), ("Q1", "E"), ("U3", "GND"),
                  ("D2", "K"), ("LED1", "GND"), ("SW1", "2")]
    out["GND"] += BUTTON_GND_CHAIN
    out["DATA_5V"] = [("U2", "Y"), ("R3", "1")]
    out["DIN"] = [("R3", "2"), ("LED1", "DIN")]
    out["Q1_BASE"] = [("R4", "2"), ("R5", "1"), ("Q1", "B")]
    out["BUZ"] = [("Q1", "C"), ("BZ1", "2"), ("R6", "2"), ("D1", "A")]
    out["LED_A"] = [("R7", "2"), ("D2", "A")]
    for wire in ("E+", "E-", "A+", "A-"):
        out[f"CELL_{wire}"] = [("U3", wire), ("LC1", wire)]
    for k, net in enumerate(j3_pins(), 1):
        if net is not None:
            out[net].append(("J3", str(k)))
    return out


def place(ref):
    return PARTS[ref][2]


# -- the DevKitC's header pins (Espressif, "ESP32-DevKitC V4 Getting Started Guide", header
# J1 and J3 tables; pin 1 at the antenna end). On the carrier the board lies USB to the back
# (perfboard row 1) and component side up, so its J3 row is the carrier's J1 (left, col 0) and
# its J1 row the carrier's J2 (right, col 10); pin k sits in row 20 - k.
DEVKIT_J1 = ["3V3", "EN", "GPIO36", "GPIO39", "GPIO34", "GPIO35", "GPIO32", "GPIO33", "GPIO25", "GPIO26",
             "GPIO27", "GPIO14", "GPIO12", "GND", "GPIO13", "GPIO9", "GPIO10", "GPIO11", "5V"]
DEVKIT_J3 = ["GND", "GPIO23", "GPIO22", "GPIO1", "GPIO3", "GPIO21", "GND", "GPIO19", "GPIO18", "GPIO5",
             "GPIO17", "GPIO16", "GPIO4", "GPIO0", "GPIO2", "GPIO15", "GPIO8", "GPIO7", "GPIO6"]


def devkit_holes():
    """{U1 pin name: [(col, row), ...]} on the carrier's grid."""
    out = {}
    for col, names in ((0, DEVKIT_J3), (10, DEVKIT_J1)):
        for k, name in enumerate(names, 1):
            out.setdefault(name, []).append((col, 20 - k))
    return out


# -- the order codes: one row per line of BOM.md's electronics table ---------------------------------
# (refs, item, exact part or spec, pack ordered, indicative EUR per pack). A manufacturer part
# number where one exists, else an exact commodity spec.
BOM = [
    (["U1"], "microcontroller", "Espressif ESP32-DevKitC-32E (ESP32-DevKitC V4, WROOM-32E, micro-USB)",
     "1", 10.00),
    (["U2"], "level shifter", "Texas Instruments SN74AHCT125N (quad buffer, PDIP-14; gate 1 used)",
     "1", 0.60),
    (["U3"], "load-cell amplifier", "SparkFun SEN-13879 (HX711 breakout), or a green HX711 module "
     "<= 38 x 21 mm", "1", 11.00),
    (["LC1"], "load cell", "HT Sensor Technology TAL220, 1 kg straight bar, 80 x 12.7 x 12.7 mm, M4 holes "
     "(sold with HX711 kits)", "1", 4.00),
    (["LED1"], "LED pixels", "WS2812B 5050 on 10 mm round PCB with 100 nF (chainable pixel boards)",
     "pack of 50", 6.00),
    (["SW1"], "reed switch", "Littelfuse MDSR-7-15-20 (N.O., pull-in 15-20 AT; the glass breaks: "
     "buy spares)", "3", 1.80),
    (["R1", "R5"], "resistor", "10 kΩ 0.25 W metal film, axial (e.g. Yageo MFR-25FBF52-10K)",
     "pack of 10", 0.30),
    (["R2"], "resistor", "100 kΩ 0.25 W metal film, axial (Yageo MFR-25FBF52-100K)", "pack of 10", 0.30),
    (["R3"], "resistor", "330 Ω 0.25 W metal film, axial (Yageo MFR-25FBF52-330R)", "pack of 10", 0.30),
    (["R4", "R6", "R7"], "resistor", "1 kΩ 0.25 W metal film, axial (Yageo MFR-25FBF52-1K)",
     "pack of 10", 0.30),
    (["C1"], "capacitor", "100 nF 50 V X7R ceramic, 2.54 mm leads (KEMET C320C104K5R5TA)",
     "pack of 10", 0.80),
    (["C2"], "capacitor", f"{BULK_UF:g} µF 25 V X7R ceramic, 5.08 mm leads (TDK FG28X7R1E475KRT06)",
     "1", 0.60),
    (["Q1"], "transistor", "onsemi BC33725TA (BC337-25 NPN, TO-92)", "1", 0.10),
    (["BZ1"], "buzzer", "passive piezo transducer 12 mm, 5 V (e.g. TDK PS1240P02BT)", "1", 0.60),
    (["D1"], "diode (not fitted)", "1N4148 (onsemi 1N4148): only for a magnetic buzzer", "0", 0.00),
    (["D2"], "LED", "3 mm red LED, diffused (e.g. Kingbright L-7104ID)", "1", 0.10),
    (["J1", "J2"], "female headers", "2.54 mm female header 1 x 19, 8.5 mm tall (or 1 x 20 cut)", "2", 1.00),
    (["J3"], "harness header", "2.54 mm right-angle male header 1 x 20 (or 1 x 40 broken)", "1", 0.30),
    ([f"SW{i + 2}" for i in range(len(BUTTONS))], "push buttons", "16 mm panel-mount momentary N.O. "
     "(M16 thread): green, yellow, red, blue, white (reveal), black (menu)", "6", 6.00),
]


def bom_table():
    """The electronics rows of BOM.md, as markdown."""
    lines = ["| refs | item | qty | part / exact spec | pack | ≈ € |", "|---|---|---:|---|---|---:|"]
    for refs, item, spec, pack, eur in BOM:
        qty = len(refs) if not item.endswith("(not fitted)") else 0
        if refs == ["LED1"]:
            qty = board.LED_COUNT
        lines.append(f"| {', '.join(refs)} | {item} | {qty} | {spec} | {pack} | {eur:.2f} |")
    return "\n".join(lines) + "\n"
