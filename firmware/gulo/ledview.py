# What the LED strip shows: a pure function of the turn flow and the time, written into one
# buffer allocated once (RGB, 3 bytes per LED, in strip order). The LED driver only copies it out.
#
#   path LEDs   face-up tiles in their colours, face-down ones a faint warm glow, none past the path;
#               a tile where Gulos stand is brighter, the tile of the player to act blinks white
#   deck LED    the deck tile turned over (its colour), else a faint glow
#   status LED  the demanded egg's colour (breathing) / the player to act's Gulo colour / amber blink
#               while the nest waits for the pole or the eggs / red after an alarm
#   animations  a success runs a light from the old tile to the new one; an alarm flashes the whole
#               path red three times, then runs the light back; a win is a rainbow chase

from gulo import board
from gulo.clock import WRAP, elapsed
from gulo.turnflow import ATTEMPTING, MENU, PICK, SETTLE, WON

# Full-scale colours; every value is scaled by the brightness cap below before it is written.
COLOURS = {"G": (0, 200, 0), "Y": (210, 150, 0), "R": (220, 0, 0), "B": (0, 60, 230),
           "P": (150, 0, 190), "J": (200, 200, 200)}
# The six Gulo figures of the box, player 0 first.
GULOS = ((230, 230, 230), (230, 80, 0), (0, 180, 180), (180, 0, 120), (120, 200, 0), (90, 40, 200))
HIDDEN = (10, 7, 3)
WHITE = (255, 255, 255)
RED = (255, 0, 0)
AMBER = (255, 110, 0)

BRIGHTNESS_CAP = board.LED_BRIGHTNESS_CAP  # every channel is scaled into 0..cap (power budget)
FACE_UP = 110    # share (of 255) for a face-up tile without a Gulo
STEP_MS = 80     # the running light: one tile per STEP_MS
FLASH_MS = 150   # alarm flash: on/off period half
BLINK_MS = 250
ALARM_STATUS_MS = 2000  # the status LED stays red this long after an alarm
FRAME_MS = 33    # ~30 fps while something moves


def brightness_cap(percent):
    """The cap for the brightness setting (0-100 %): never above the power budget's cap."""
    return BRIGHTNESS_CAP * percent // 100


class LedView:
    def __init__(self, count=board.LED_COUNT, cap=BRIGHTNESS_CAP):
        self.count = count
        self.cap = cap
        self.buf = bytearray(3 * count)

    def set_brightness(self, percent):
        """The brightness setting (0-100 %), within the power budget's cap."""
        self.cap = brightness_cap(percent)

    def _set(self, i, rgb, level=255):
        # level and cap both scale: 255 * 255 * 255 fits a small int on the ESP32 (< 2**30).
        k = level * self.cap
        j = 3 * i
        b = self.buf
        b[j] = rgb[0] * k // 65025
        b[j + 1] = rgb[1] * k // 65025
        b[j + 2] = rgb[2] * k // 65025

    def tile_led(self, k):
        """The LED index of path tile k (1-based)."""
        return board.LED_PATH_FIRST + k - 1

    def render(self, flow, t_ms):
        game = flow.game
        n = len(game.path)
        last = flow.last
        age = elapsed(t_ms, last["t_ms"]) if last else WRAP
        # 1. the path at rest, or red all along during an alarm's flash (painted once: the
        # alarm's first frame is drawn between the pole and the LEDs, every _set costs there)
        red = flow.phase != WON and self._red_flash(last, age)
        for k in range(1, board.LED_PATH_COUNT + 1):
            if k > n:
                self._set(self.tile_led(k), (0, 0, 0))
            elif red:
                self._set(self.tile_led(k), RED)
            elif k <= game.revealed:
                here = k in game.positions
                self._set(self.tile_led(k), COLOURS[game.path[k - 1]], 255 if here else FACE_UP)
            else:
                self._set(self.tile_led(k), HIDDEN)
        if flow.phase == WON:
            self._rainbow(n, t_ms)
        else:
            self._actor(game, flow, t_ms, age)
            self._animation(last, age, n)
        # 2. the deck
        if game.drawn is not None:
            self._set(board.LED_DECK, COLOURS[game.drawn])
        else:
            self._set(board.LED_DECK, HIDDEN)
        # 3. the status
        self._status(flow, t_ms, age)
        return self.buf

    def still_ms(self, flow, t_ms):
        """How long render() keeps drawing what it drew at t_ms while the flow does not change:
        FRAME_MS while something moves (an animation, the breathing status, the rainbow), else
        up to the next blink or the end of the red status, or None: until the flow changes.
        The lights task sleeps this long instead of redrawing an unchanged picture."""
        if flow.phase == WON or (flow.phase in ATTEMPTING and flow.game.demand):
            return FRAME_MS
        last = flow.last
        age = elapsed(t_ms, last["t_ms"]) if last else WRAP
        if age <= self._anim_ms(last):  # (the actor's blink starts only once it is over)
            return FRAME_MS
        wait = None
        game = flow.game
        if game.positions[game.turn] or (flow.phase == SETTLE and flow.prompt):
            wait = BLINK_MS - t_ms % BLINK_MS  # the actor's tile / the amber status blink
        if last and last["event"] == "alarm" and age < ALARM_STATUS_MS:
            left = ALARM_STATUS_MS - age  # the red status goes out
            wait = left if wait is None else min(wait, left)
        return wait

    def _actor(self, game, flow, t_ms, age):
        pos = game.positions[game.turn]
        if pos and (t_ms // BLINK_MS) % 2 and age > self._anim_ms(flow.last):
            self._set(self.tile_led(pos), WHITE)

    def _anim_ms(self, last):
        if not last or last["event"] not in ("success", "alarm"):
            return 0
        steps = abs(last["to"] - last["from"]) * STEP_MS
        return steps + (6 * FLASH_MS if last["event"] == "alarm" else 0)

    def _animation(self, last, age, n):
        if not last or last["event"] not in ("success", "alarm") or age >= self._anim_ms(last):
            return
        if last["event"] == "alarm" and age < 6 * FLASH_MS:
            return  # the flash: red (render's first pass) or the path at rest
        run = age - (6 * FLASH_MS if last["event"] == "alarm" else 0)
        a, b = last["from"], last["to"]
        step = 1 if b > a else -1
        k = a + step * (1 + run // STEP_MS)
        if 1 <= k <= n:
            self._set(self.tile_led(k), WHITE)

    def _red_flash(self, last, age):
        """True while an alarm's flash shows the path red (three times FLASH_MS on, FLASH_MS off)."""
        return bool(last) and last["event"] == "alarm" and age < 6 * FLASH_MS and (age // FLASH_MS) % 2 == 0

    def _rainbow(self, n, t_ms):
        for k in range(1, n + 1):
            self._set(self.tile_led(k), wheel((k * 256 // n + t_ms // 8) & 255))

    def _status(self, flow, t_ms, age):
        game = flow.game
        if flow.phase == WON:
            self._set(board.LED_STATUS, wheel((t_ms // 4) & 255))
        elif flow.last and flow.last["event"] == "alarm" and age < ALARM_STATUS_MS:
            self._set(board.LED_STATUS, RED)
        elif flow.phase in ATTEMPTING and game.demand:
            # Breathing: a triangle wave from 1/4 to full over 1.2 s.
            phase = t_ms % 1200
            level = 64 + (191 * (phase if phase < 600 else 1200 - phase)) // 600
            self._set(board.LED_STATUS, COLOURS[game.demand], level)
        elif flow.phase == SETTLE and flow.prompt:
            # Blinking: in the colour of the one egg the nest asks for (back, or out) when the
            # weight names it, amber otherwise (the pole, or eggs it cannot name).
            self._set(board.LED_STATUS, self._asked(flow) if (t_ms // BLINK_MS) % 2 else (0, 0, 0))
        elif flow.phase == PICK or flow.phase == MENU:
            self._set(board.LED_STATUS, GULOS[game.turn])
        else:
            self._set(board.LED_STATUS, (0, 0, 0))


    def _asked(self, flow):
        need = flow.need
        if need and not need.get("pour"):  # every egg back first: no one colour to show
            eggs = need.get("back") or need.get("out")
            if eggs and len(eggs) == 1:
                for c in eggs:
                    return COLOURS[c]
        return AMBER


def to_strip(rgb, out, order):
    """An RGB buffer (LedView.buf) into a strip driver's buffer `out`, whose bytes of each LED are
    in `order` (the offsets of R, G, B: NeoPixel.ORDER). In place, allocating nothing: the LEDs'
    write on the alarm's path (firmware/tests/test_alarm_path.py)."""
    r, g, b = order[0], order[1], order[2]
    for j in range(0, len(rgb), 3):
        out[j + r] = rgb[j]
        out[j + g] = rgb[j + 1]
        out[j + b] = rgb[j + 2]


def wheel(x):
    """A colour wheel position 0..255 -> RGB, full saturation."""
    if x < 85:
        return (255 - x * 3, x * 3, 0)
    if x < 170:
        x -= 85
        return (0, 255 - x * 3, x * 3)
    x -= 170
    return (x * 3, 0, 255 - x * 3)
