# What the LED strip shows for a given game and phase.

from gulo import board
from gulo.ledview import BRIGHTNESS_CAP, HIDDEN, RED, LedView
from gulo.turnflow import PICK, WON, TurnFlow

from gamekit import game_with, play


def flow_for(game, phase=PICK):
    f = TurnFlow(game)
    f.phase = phase
    return f


def pixel(view, i):
    """LED i as the view drew it (RGB)."""
    j = 3 * i
    return (view.buf[j], view.buf[j + 1], view.buf[j + 2])


def scaled(rgb, level=255):
    return tuple([c * level * BRIGHTNESS_CAP // 65025 for c in rgb])


def test_face_up_tiles_show_their_colours_and_hidden_ones_glow():
    g = game_with("GRYB")
    play(g, "reveal", "take G", "reveal", "take R")   # tiles 1, 2 face up, Gulos on both
    view = LedView()
    view.render(flow_for(g), 0)
    assert pixel(view, view.tile_led(1))[1] > 0 and pixel(view, view.tile_led(1))[0] == 0   # green
    assert pixel(view, view.tile_led(2))[0] > 0 and pixel(view, view.tile_led(2))[1] == 0   # red
    assert pixel(view, view.tile_led(3)) == scaled(HIDDEN)
    assert pixel(view, view.tile_led(20)) == (0, 0, 0)                                   # no tile 20 yet


def test_nothing_exceeds_the_brightness_cap():
    g = game_with("GRYB")
    view = LedView()
    f = flow_for(g, WON)
    for t in range(0, 3000, 37):
        view.render(f, t)
        assert max(view.buf) <= BRIGHTNESS_CAP


def test_the_player_to_act_blinks():
    g = game_with("GRYB")
    play(g, "reveal", "take G", "reveal", "alarm")   # p0 on tile 1, p1 failed: p0 to act
    view = LedView()
    f = flow_for(g)
    seen = set()
    for t in (5000, 5250, 5500, 5750):
        view.render(f, t)
        seen.add(pixel(view, view.tile_led(1)))
    assert len(seen) == 2


def test_an_alarm_flashes_the_path_red():
    g = game_with("GRYB")
    f = flow_for(g)
    f.button("reveal", 0)
    f.phase = "attempt"
    f.pole(False, 1000)
    view = LedView()
    view.render(f, 1000)
    assert pixel(view, view.tile_led(1)) == scaled(RED)
    assert pixel(view, board.LED_STATUS) == scaled(RED)
    view.render(f, 1000 + 150)
    assert pixel(view, view.tile_led(1)) != scaled(RED)


def test_the_status_shows_the_demanded_colour():
    g = game_with("BRYG")
    f = flow_for(g)
    f.button("reveal", 0)
    view = LedView()
    view.render(f, 600)   # the top of the breath
    r, gr, b = pixel(view, board.LED_STATUS)
    assert b > r and b > gr


def test_a_drawn_deck_tile_is_shown():
    g = game_with("GRYB", deck="RGJYB")
    g.revealed = 19
    g.positions[0] = 19
    play(g, "reveal")
    view = LedView()
    view.render(flow_for(g, "attempt"), 0)
    assert pixel(view, board.LED_DECK)[0] > 0 and pixel(view, board.LED_DECK)[2] == 0


def test_the_brightness_setting_dims_every_led_within_the_cap():
    from gulo.ledview import brightness_cap

    g = game_with("GRYB")
    play(g, "reveal", "take G")
    full, half, dark = LedView(), LedView(cap=brightness_cap(50)), LedView(cap=brightness_cap(0))
    for v in (full, half, dark):
        v.render(flow_for(g), 0)
    assert brightness_cap(100) == BRIGHTNESS_CAP
    assert max(half.buf) < max(full.buf) and max(half.buf) >= max(full.buf) // 2 - 1
    assert max(dark.buf) == 0


def test_the_status_blinks_in_the_colour_of_the_egg_the_nest_asks_for():
    from gulo.ledview import AMBER, BLINK_MS, COLOURS
    from gulo.turnflow import EGGS_BACK, SETTLE

    f = flow_for(game_with("GRYB"), SETTLE)
    view = LedView()
    f.prompt, f.need = EGGS_BACK, {"back": {"R": 1}}
    view.render(f, BLINK_MS)   # the lit half of the blink
    assert pixel(view, board.LED_STATUS) == scaled(COLOURS["R"])
    f.need = {"out": {"Y": 1}}
    view.render(f, BLINK_MS)
    assert pixel(view, board.LED_STATUS) == scaled(COLOURS["Y"])
    f.need = None              # eggs the weight cannot name: amber, as for the pole
    view.render(f, BLINK_MS)
    assert pixel(view, board.LED_STATUS) == scaled(AMBER)
