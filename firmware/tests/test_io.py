# The `io` console command: the buttons' debounced states and the LED strip read back as the
# strip holds it, with fakes at the level the handler uses them (a NeoPixel-like strip that keeps
# its bytes in wire order, real Debounced buttons on fake pins).

import json

from gulo import board
from gulo.commands import io_state
from gulo.console import answer, parse
from gulo.debounce import Debounced
from gulo.vocab import BUTTONS

from fakes import FakePin


class FakeStrip:
    """neopixel.NeoPixel's item API: (r, g, b) in, (r, g, b) out, GRB bytes inside as on the wire."""

    def __init__(self, n):
        self.buf = bytearray(3 * n)

    def __len__(self):
        return len(self.buf) // 3

    def __setitem__(self, i, v):
        self.buf[3 * i] = v[1]
        self.buf[3 * i + 1] = v[0]
        self.buf[3 * i + 2] = v[2]

    def __getitem__(self, i):
        return (self.buf[3 * i + 1], self.buf[3 * i], self.buf[3 * i + 2])


class FakeHw:
    def __init__(self):
        self.strip = FakeStrip(board.LED_COUNT)
        self.pins = {}
        self.buttons = []
        for name in BUTTONS:
            pin = self.pins[name] = FakePin(1)  # pulled up: released
            self.buttons.append((name, Debounced(pin, 20, True, 0)))


def test_io_parses_with_no_fields_and_refuses_any():
    assert parse('{"cmd": "io", "id": 4}') == ("io", {}, 4)
    try:
        parse('{"cmd": "io", "leds": 1}')
    except ValueError as e:
        assert str(e) == "io: unknown field leds"
    else:
        assert False, "a field on io was accepted"


def test_io_reads_the_strip_back_in_rgb_order():
    hw = FakeHw()
    hw.strip[0] = (1, 2, 3)
    hw.strip[board.LED_STATUS] = (48, 0, 17)
    io = io_state(hw)
    assert len(io["leds"]) == 6 * board.LED_COUNT
    assert io["leds"][:6] == "010203"
    assert io["leds"][6 * board.LED_STATUS:6 * board.LED_STATUS + 6] == "300011"
    assert io["leds"][6:6 * board.LED_STATUS] == "0" * (6 * (board.LED_STATUS - 1))
    assert io["cap"] == board.LED_BRIGHTNESS_CAP


def test_io_gives_the_debounced_button_states():
    hw = FakeHw()
    assert io_state(hw)["buttons"] == {"reveal": False, "G": False, "Y": False, "R": False,
                                       "B": False, "menu": False}
    red = dict(hw.buttons)["R"]
    hw.pins["R"].level = 0          # pressed, but not yet 20 ms of calm: still released
    red.poll(100)
    assert io_state(hw)["buttons"]["R"] is False
    assert red.poll(125) is True    # confirmed
    state = io_state(hw)["buttons"]
    assert state["R"] is True and [k for k in state if state[k]] == ["R"]


def test_io_answer_is_one_json_line_inside_the_line_budget():
    hw = FakeHw()
    for i in range(board.LED_COUNT):
        hw.strip[i] = (255, 255, 255)
    line = answer("io", 123456, **io_state(hw))
    back = json.loads(line)
    assert back["re"] == "io" and back["ok"] is True and back["leds"] == "ff" * (3 * board.LED_COUNT)
    assert len(line) + 2 <= 320  # docs/console-tools.md: the io poll's bytes per second
