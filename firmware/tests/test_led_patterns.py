# The console's `leds` test patterns: every pattern the console accepts paints the strip, and no two
# paint the same thing (once, `rainbow` and `game` were accepted and painted white, answering ok).

from gulo import board
from gulo.commands import led_pattern
from gulo.console import parse
from gulo.ledview import LedView
from gulo.turnflow import PICK, TurnFlow
from gulo.vocab import LED_PATTERNS

from gamekit import game_with, play


def a_flow():
    g = game_with("GRYB")
    play(g, "reveal", "take G")
    f = TurnFlow(g)
    f.phase = PICK
    return f


def paint_all(paint, flow):
    """{pattern: the strip's bytes} for every pattern the console's parser accepts."""
    out = {}
    for name in LED_PATTERNS:
        cmd, args, _ = parse('{"cmd": "leds", "pattern": "%s"}' % name)
        out[name] = bytes(paint(args["pattern"], flow, 1000))
    return out


def same_paint(strips):
    """Pairs of patterns that paint the same strip (sorted names)."""
    names = sorted(strips)
    return [(a, b) for i, a in enumerate(names) for b in names[i + 1:] if strips[a] == strips[b]]


def test_every_pattern_paints_something_distinct():
    view = LedView()
    strips = paint_all(lambda name, flow, t_ms: led_pattern(view, name, flow, t_ms), a_flow())
    assert same_paint(strips) == [], same_paint(strips)
    for name in strips:
        assert len(strips[name]) == 3 * board.LED_COUNT
        if name != "off":
            assert max(strips[name]) > 0, name


def test_the_check_catches_a_pattern_that_paints_another_ones_strip():
    # Planted: `rainbow` painting white, as the handler once did.
    view = LedView()

    def planted(name, flow, t_ms):
        return led_pattern(view, "white" if name == "rainbow" else name, flow, t_ms)

    assert same_paint(paint_all(planted, a_flow())) == [("rainbow", "white")]


def test_game_is_the_game_picture_and_solid_colours_use_the_power_cap():
    flow = a_flow()
    view = LedView(cap=board.LED_BRIGHTNESS_CAP // 2)  # a dimmed brightness setting
    game = bytes(LedView(cap=board.LED_BRIGHTNESS_CAP // 2).render(flow, 1000))
    assert bytes(led_pattern(view, "game", flow, 1000)) == game
    red = led_pattern(view, "red", flow, 1000)
    assert red[0] == board.LED_BRIGHTNESS_CAP and red[1] == 0 and red[2] == 0  # the test's full cap
    assert view.cap == board.LED_BRIGHTNESS_CAP // 2                         # the setting kept


def test_rainbow_shows_every_hue_band():
    buf = led_pattern(LedView(), "rainbow", a_flow(), 0)
    # each of red, green and blue is the strongest channel somewhere along the strip
    strongest = set()
    for i in range(board.LED_COUNT):
        px = buf[3 * i:3 * i + 3]
        strongest.add(max(range(3), key=lambda c: px[c]))
    assert strongest == {0, 1, 2}
