"""`nest calibrate` on the virtual board: the wizard's prompts answered through stdin while the
weights are put on the virtual scale through the control channel (`load`). The masses measured
are the world's, they survive a reset, the game is not disturbed meanwhile, classes that are not
separable are refused with nothing changed, and an egg out of tolerance is named (each egg is
weighed: the eggs go on one at a time)."""

import os
import re
import select
import subprocess
import time

import pytest

from nest.boardconsole import BoardConsole
from testkit.nest_console_fixtures import NEST, app_board_in, fresh_game
from testkit.vboard_fixtures import Console

pytestmark = pytest.mark.board
EGGS = (("G", 2), ("P", 2), ("Y", 2), ("R", 2), ("B", 2))   # two of each: the per-egg sums, quickly
NAMES = {"G": "green", "P": "purple", "Y": "yellow", "R": "red", "B": "blue"}
SETTLE_S = 1.0  # a load set down rings for well under a second


class Wizard:
    def __init__(self, board, *options):
        self.proc = subprocess.Popen([str(NEST), "calibrate", "--port", board.port, *options],
                                     stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.out = b""
        self.seen = 0  # output up to here was matched already

    def expect(self, text, timeout=30.0):
        """Wait for `text` in the output that follows the last match."""
        end = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while text.encode() not in self.out[self.seen:]:
            left = end - time.monotonic()
            if left <= 0 or self.proc.poll() is not None and not select.select([fd], [], [], 0)[0]:
                err = self.proc.stderr.read().decode() if self.proc.poll() is not None else ""
                raise AssertionError(f"{text!r} not seen; got:\n{self.out.decode()}\n{err}")
            if select.select([fd], [], [], min(left, 0.2))[0]:
                chunk = os.read(fd, 4096)
                self.out += chunk
        self.seen = self.out.index(text.encode(), self.seen) + len(text)

    def answer(self, text):
        self.proc.stdin.write((text + "\n").encode())
        self.proc.stdin.flush()

    def tare_and_reference(self, ctl, typo=None):
        """The wizard's first two steps: the bowl tared as it is, then a 200 g reference put on
        (it is still on the scale after); `typo` first answered for the reference's grams."""
        self.expect("Take every egg out of the bowl")
        self.answer("")                   # the virtual bowl keeps its eggs: tare zeroes what is there
        self.expect("reference mass in grams")
        if typo is not None:
            self.answer(typo)
            self.expect("try again")
            self.expect("reference mass in grams")
        self.answer("200")
        self.expect("Put the 200 g weight on the bowl")
        ctl.load(grams=200)
        time.sleep(SETTLE_S)
        self.answer("")
        self.expect("counts per gram")            # measured: the weight may come off now

    def weigh_colour(self, ctl, colour, n, heavy=None, extra_g=0.0):
        """Answer one colour's prompts: n eggs put on one at a time (egg `heavy` with extra_g more)."""
        name = NAMES[colour]
        self.expect(f"how many {name} eggs will you weigh")
        self.answer(str(n))
        for k in range(1, n + 1):
            self.expect(f"Put {name} egg {k} of {n} on the bowl")
            ctl.load(colour=colour, count=1)
            if k == heavy:
                ctl.load(grams=extra_g)
            time.sleep(SETTLE_S)
            self.answer("")
        self.expect(f"{name} ({colour}):")      # measured: the eggs may come off now

    def finish(self, timeout=30):
        rest, err = self.proc.communicate(timeout=timeout)
        self.out += rest
        return self.proc.returncode, self.out.decode(), err.decode()


@pytest.fixture(scope="module")
def nest_board(tmp_path_factory):
    # A board of this module's own, its cell quieter than the shared one's: the shared world (seed
    # 1) has 0.185 g rms, where the classes' check (gaps of 10 sigmas: 1.85 g, and 2.03 g from the
    # tare's estimate of 0.203 g once in CI) meets the eggs' 2 g gaps, and a scale-only `done` was
    # refused. Seed 3: 0.128 g rms.
    with app_board_in(tmp_path_factory.mktemp("calibrate-board"), seed=3) as board:
        yield board


def board_masses(board):
    with BoardConsole.open(board.port) as con:
        return con.request("masses")["masses"], con.request("status")


def test_the_wizard_measures_the_worlds_eggs_and_saves_them(nest_board):
    ctl = nest_board.control
    fresh_game(nest_board, seed=11)
    with BoardConsole.open(nest_board.port) as con:
        con.request("press", button="reveal")   # a colour is demanded: the nest is watched
        before = con.request("status")
    assert before["phase"] == "attempt"

    w = Wizard(nest_board)
    w.tare_and_reference(ctl)
    ctl.load(grams=-200)
    for colour, n in EGGS:
        w.weigh_colour(ctl, colour, n)
        ctl.load(colour=colour, count=-n)     # taken off before the next colour's prompt answers
    w.expect("put every egg back into the nest")
    time.sleep(SETTLE_S)
    w.answer("")
    rc, out, err = w.finish()
    assert rc == 0, out + err
    assert "[4/4] Save" in out and "separable" in out and "Saved on the board" in out
    # half of the weigher's tolerance (half the narrowest measured gap, ~2 g): ~0.5 g
    assert re.search(r"every egg within 0\.(4\d|5[01]) g of its colour's median", out), out

    masses, status = board_masses(nest_board)
    truth = nest_board.world.masses
    for c in truth:
        assert abs(masses[c] - truth[c]) < 0.15, (c, masses, truth)
    # Nothing was judged while calibrating: the demand still stands, nobody moved.
    assert status["state"]["positions"] == before["state"]["positions"]
    assert status["state"]["demand"] == before["state"]["demand"]
    assert status["state"]["turn"] == before["state"]["turn"]

    # Saved on flash: the board's reset brings back the measured masses.
    import serial

    with serial.Serial(nest_board.port, 115200, timeout=0.1) as port:
        ctl.reset()
        Console(port).wait(lambda ev: ev.get("ev") == "ready")
    assert board_masses(nest_board)[0] == masses


def start_refused(board, seed):
    """A fresh game, the board's masses before, and a wizard past tare and reference (the
    reference taken off again): the two refusal tests' common start."""
    ctl = board.control
    fresh_game(board, seed=seed)
    old, _ = board_masses(board)
    w = Wizard(board)
    w.tare_and_reference(ctl)
    ctl.load(grams=-200)
    return ctl, old, w


def test_classes_that_are_not_separable_are_refused_and_nothing_changes(nest_board):
    ctl, old, w = start_refused(nest_board, 12)
    w.weigh_colour(ctl, "G", 2)
    for colour, _n in EGGS[1:]:          # the same two green eggs left on for every colour
        w.expect(f"how many {NAMES[colour]} eggs will you weigh")
        w.answer("2")
        for k in (1, 2):
            w.expect(f"egg {k} of 2 on the bowl")
            w.answer("")
    w.expect("Weigh which colours again")
    ctl.load(colour="G", count=-2)       # off before the cancel: the game resumes on a full nest
    time.sleep(SETTLE_S)
    w.answer("q")
    rc, out, err = w.finish()
    assert rc == 1 and "not separable" in err, out + err
    assert "NOT separable" in out
    assert board_masses(nest_board)[0] == old
    with BoardConsole.open(nest_board.port) as con:
        assert con.request("calibration", step="status")["active"] is False  # cancelled


def test_an_egg_out_of_tolerance_is_named_and_nothing_is_saved(nest_board):
    """Planted fault: the third green egg carries 1.2 g too much ballast (the tolerance is half the
    weigher's 1.0 g class tolerance): the wizard names it and saves nothing."""
    ctl, old, w = start_refused(nest_board, 13)
    w.weigh_colour(ctl, "G", 3, heavy=3, extra_g=1.2)
    ctl.load(colour="G", count=-3)
    ctl.load(grams=-1.2)
    for colour in "PYRB":
        w.weigh_colour(ctl, colour, 1)
        ctl.load(colour=colour, count=-1)
    w.expect("green egg 3 weighs")
    w.expect("Weigh which colours again")
    w.answer("q")
    rc, out, err = w.finish()
    assert rc == 1 and "green egg 3" in err and "out of tolerance" in err, out + err
    assert "green egg 1 weighs" not in out and "green egg 2 weighs" not in out   # the good ones pass
    assert board_masses(nest_board)[0] == old


def test_the_scale_is_saved_alone_and_the_eggs_weighed_later(nest_board):
    """Bring-up stage 2: tare and the known weight saved without any egg (the masses stay as they
    were), a typo for the reference's grams asked again without losing the tare; then
    `--eggs` weighs the eggs alone."""
    ctl = nest_board.control
    fresh_game(nest_board, seed=14)
    old, _ = board_masses(nest_board)
    w = Wizard(nest_board, "--scale")
    w.tare_and_reference(ctl, typo="abc")
    assert "'abc' is not a number of grams: try again" in w.out.decode()
    w.expect("weigh the eggs later with `nest calibrate --eggs`")
    w.expect("Take the weight off, then press Enter")
    ctl.load(grams=-200)
    time.sleep(SETTLE_S)
    w.answer("")
    rc, out, err = w.finish()
    assert rc == 0 and "Saved on the board" in out, out + err
    assert "[1/3] Tare" in out and "Eggs by colour" not in out
    assert board_masses(nest_board)[0] == old

    w = Wizard(nest_board, "--eggs")
    w.expect("[1/3] Tare")
    w.expect("Take every egg out of the bowl")
    w.answer("")
    for colour, n in EGGS:
        if colour == "G":               # a typo for the count is asked again, too
            w.expect("how many green eggs will you weigh")
            w.answer("two")
            w.expect("'two' is not a whole number of eggs: try again")
        w.weigh_colour(ctl, colour, n)
        ctl.load(colour=colour, count=-n)
    w.expect("put every egg back into the nest")
    time.sleep(SETTLE_S)
    w.answer("")
    rc, out, err = w.finish()
    assert rc == 0 and "Saved on the board" in out and "Known weight" not in out, out + err
    masses, _ = board_masses(nest_board)
    for c, truth in nest_board.world.masses.items():
        assert abs(masses[c] - truth) < 0.15, (c, masses)
