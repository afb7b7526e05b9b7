"""The nest's schematic, generated from the one pin map (firmware/gulo/board.py).

`netlist()` is the circuit as data (parts, and nets of (part, pin)); `draw()` renders it with
schemdraw, every GPIO a net label on the DevKitC and on the part it drives, so the picture and the
netlist cannot disagree; tests/test_schematic.py checks the netlist against board.PINS and the
parts' rules (the shifter's OE tied, the pull-downs, the USB capacitance limit).

    .venv/bin/python -m enclosure.schematic      # docs/enclosure/schematic.png + perfboard.png

Why each part (figures with their sources):
- U2 SN74AHCT125N, gate 1: WS2812B need DIN high >= 0.7 VDD = 3.5 V at 5 V (WS2812B data
  sheet, Worldsemi, "VIH"); the AHCT input threshold is TTL (VIH 2.0 V at 5 V, TI SN74AHCT125
  data sheet), so 3.3 V drives it. A buffer, not an inverter. 1OE (pin 1) is active low: tied
  to GND, always on; the three unused gates' OE tied high and their inputs low. (The single-gate
  74AHCT1G125 exists only as SOT-23-5/SC-70: the DIP-14 quad solders straight onto perfboard.)
- R2 100 k: GPIO16 floats while the ESP32 boots (no pull at reset: ESP32 data sheet, "strapping
  pins and their defaults" lists none for it): held low, the first pixel sees no garbage.
- R3 330 ohm at the first pixel's DIN: damps the edge on the wire (Adafruit NeoPixel Uberguide,
  "Best practices": 300-500 ohm at the first pixel's data input).
- C2 bulk at the first pixel: USB 2.0 section 7.2.4.1 allows a device at most 10 uF across VBUS
  at attach (inrush): C2 plus the pixel boards' own 100 nF each stay under it (tested); 48/255
  brightness keeps the strip's steps small (BOM.md power budget).
- Q1 BC337 + R4 1 k + R5 10 k: GPIO22's 3.3 V gives ~2.6 mA of base current (hFE >= 100 at
  100 mA: BC337 data sheet, onsemi), R5 holds the base low while GPIO22 floats at boot. The
  piezo is a capacitor: R6 bleeds it so the NPN's pull-down alone makes the tone. D1 only for a
  magnetic buzzer (an inductor): left out for the piezo (DNP).
- R1 10 k: the reed's pull-up to 3V3 (HARDWARE.md); the buttons use the internal pull-ups.
- D2 + R7: the heartbeat LED on GPIO2 (the DevKitC V4 has only a power LED, GPIO2 drives nothing
  on it). GPIO2 is a strapping pin that must be low or floating to enter the serial bootloader
  (ESP32 data sheet, strapping pins): an LED to GND keeps it low, as required.
"""
from pathlib import Path

from gulo import board

from . import circuit

ROOT = Path(__file__).resolve().parent.parent

USB_MAX_UF = 10.0          # USB 2.0 section 7.2.4.1
PIXEL_DECOUPLING_UF = 0.1  # the 100 nF on each WS2812B pixel board
BULK_UF = circuit.BULK_UF

# The circuit is described once, in enclosure/circuit.py; the schematic draws it.
PARTS = {ref: (value, what) for ref, (value, what, _where) in circuit.PARTS.items()}
BUTTONS = circuit.BUTTONS
gpio_net = circuit.gpio_net
netlist = circuit.nets


def added_vbus_uf(bulk_uf=BULK_UF):
    """Capacitance the nest adds across USB VBUS at attach: C2 and the pixels' decoupling."""
    return bulk_uf + board.LED_COUNT * PIXEL_DECOUPLING_UF


# --- drawing --------------------------------------------------------------------------------------

def draw(path):
    import matplotlib

    matplotlib.use("Agg")
    import schemdraw
    import schemdraw.elements as elm
    import schemdraw.logic as logic

    nets = netlist()
    left = [n for n in board.PINS if n.startswith("BUTTON_")]
    right = [n for n in board.PINS if n not in left]
    pins = [elm.IcPin(name=f"GPIO{board.PINS[n]}", side="left", anchorname=n) for n in left]
    pins += [elm.IcPin(name=f"GPIO{board.PINS[n]}", side="right", anchorname=n) for n in right]
    pins += [elm.IcPin(name="5V", side="top", anchorname="5V")]
    pins += [elm.IcPin(name=p, side="bottom", anchorname=p) for p in ("3V3", "GND")]
    with schemdraw.Drawing(show=False, fontsize=10) as d:
        d.config(unit=2.0)
        u1 = elm.Ic(pins=pins, edgepadW=3.5, edgepadH=0.8, pinspacing=1.2, leadlen=0.8)
        d += u1
        for n in left:
            d += elm.Line().at(getattr(u1, n)).left(0.6)
            d += elm.Tag().left().label(n, fontsize=9)
        for n in right:
            d += elm.Line().at(getattr(u1, n)).right(0.6)
            d += elm.Tag().right().label(n, fontsize=9)
        d += elm.Line().at(u1["5V"]).up(0.5)
        d += elm.Vdd().label("+5V")
        d += elm.Line().at(u1["3V3"]).down(0.8)
        d += elm.Tag().down().label("+3V3", fontsize=9)
        d += elm.Line().at(u1.GND).down(0.5)
        d += elm.Ground()
        d += elm.Label().at((u1.GND[0] + 3.0, u1.GND[1] - 1.2)).label("U1 ESP32-DevKitC V4\n(WROOM-32 only)",
                                                               fontsize=11, loc="right")

        x0 = 14.0       # the circuits right of the DevKitC, one row each
        row = [12.0]

        def start(net, dy=3.2):
            y = row[0]
            row[0] -= dy
            d.add(elm.Tag().at((x0, y)).left().label(net, fontsize=9, loc="left"))
            return (x0, y)

        # LEDS: pull-down, shifter (OE to GND), series resistor at the first pixel, bulk cap.
        p = start("LEDS", 5.5)
        d += elm.Line().at(p).right(1.0)
        dot = d.add(elm.Dot())
        d += elm.Resistor().at(dot.center).down(1.6).label("R2 100k", loc="bottom")
        d += elm.Ground()
        d += elm.Line().at(dot.center).right(0.8)
        d += logic.Tristate(outputnot=False, controlnot=True).right().label(
            "U2 74AHCT125N (gate 1)", loc="top", fontsize=9)
        d += elm.Resistor().right().label("R3 330")
        d += elm.Tag().right().label("DIN pixel 1", fontsize=9)
        d += elm.Label().at((p[0] + 3.3, p[1] - 1.6)).label(
            "1OE (1) -> GND, VCC +5V, C1 100n;\nunused gates: OE +5V, A GND", fontsize=8)
        d += elm.Capacitor().at((p[0] + 13.0, p[1] + 0.8)).down(1.6).label(f"C2 {BULK_UF:g}u", loc="bottom")
        d += elm.Label().at((p[0] + 13.0, p[1] + 1.2)).label("+5V at pixel 1", fontsize=8)

        # REED: pull-up to 3V3, reed to GND.
        p = start("REED", 5.0)
        d += elm.Line().at(p).right(1.0)
        dot = d.add(elm.Dot())
        d += elm.Resistor().at(dot.center).up(1.4).label("R1 10k", loc="bottom")
        d += elm.Vdd().label("+3V3")
        d += elm.Line().at(dot.center).right(1.0)
        d += elm.SwitchReed().down(1.6).label("SW1 reed", loc="bottom")
        d += elm.Ground()

        # BUZZER: base resistor, base pull-down, NPN, piezo from +5V with its bleed resistor.
        p = start("BUZZER", 5.0)
        d += elm.Resistor().at(p).right().label("R4 1k")
        dot = d.add(elm.Dot())
        d += elm.Resistor().at(dot.center).down(1.6).label("R5 10k", loc="bottom")
        d += elm.Ground()
        d += elm.Line().at(dot.center).right(0.8)
        q = d.add(elm.BjtNpn(circle=True).anchor("base").label("Q1 BC337", loc="right"))
        d += elm.Line().at(q.emitter).down(0.4)
        d += elm.Ground()
        d += elm.Line().at(q.collector).up(0.4)
        d += elm.Speaker().up().label("BZ1 piezo to +5V", loc="top", fontsize=8)
        d += elm.Label().at((q.collector[0] + 3.2, q.collector[1] + 1.0)).label(
            "R6 1k across BZ1;\nD1 1N4148 (DNP: only\nfor a magnetic buzzer)", fontsize=8)

        # HX711 and the heartbeat LED.
        p = start("HX711_SCK / HX711_DOUT", 2.4)
        d += elm.Line().at(p).right(1.0)
        d += elm.Label().at((p[0] + 1.2, p[1])).label(
            "U3 HX711 SCK / DT; VCC and VDD +3V3; load cell E+ E- A+ A-", fontsize=9, loc="right")
        p = start("ONBOARD_LED", 2.6)
        d += elm.Resistor().at(p).right().label("R7 1k")
        d += elm.LED().right().label("D2")
        d += elm.Ground()

        # Buttons: each to GND.
        for i, n in enumerate(left):
            y = 8.0 - 2.2 * i
            d += elm.Line().at((-20.0, y)).right(1.0).label(n, loc="left", fontsize=9)
            d += elm.Button().right().label(f"SW{i + 2}", fontsize=8)
            d += elm.Line().right(0.5)
            d += elm.Ground()
        j3 = circuit.j3_pins()
        d += elm.Label().at((-20.0, -6.0)).label(
            "J3 harness header: " + ", ".join(f"{k} {n.split(' ')[-1]}" for k, n in enumerate(j3, 1) if n),
            fontsize=8, loc="right")
        d += elm.Label().at((-20.0, -7.0)).label(
            f"{len(nets)} nets, drawn from enclosure/circuit.py (GPIOs: firmware/gulo/board.py)", fontsize=9,
            loc="right")
        d.save(str(path), dpi=90)


def main():
    out = ROOT / "docs" / "enclosure"
    draw(out / "schematic.png")
    from . import perfboard

    perfboard.draw(out / "perfboard.png")
    print(f"wrote {out / 'schematic.png'} and {out / 'perfboard.png'}")


if __name__ == "__main__":
    main()
