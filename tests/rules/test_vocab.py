"""One vocabulary for the firmware and the host (gulo.vocab): every kind of note the firmware's turn
flow makes is in it, and the host words every kind in it (nest.words for the terminal, i18n.js for
the play page). Each check is shown to fail on a planted fault: a note kind the host does not word,
a note the vocabulary does not know."""

import json
import random
import subprocess
from pathlib import Path

import pytest

from gulo import board, console, vocab
from nest.words import LANGUAGES, Words, note_kind
from testkit.boardkit import Mismatch, NestUnderTest
from testkit.table import Table

I18N = Path(__file__).resolve().parents[2] / "host_tools" / "nest" / "web" / "static" / "i18n.js"
# i18n.js is a plain browser script: Node runs it in a context of its own and gives, per language,
# the note kinds its `notes` table words (own keys; a null value is a kind the page shows elsewhere)
# and the history line it makes of each sample note (argv[2], JSON) whose kind it words.
_PAGE_NOTES = """
const fs = require("fs"), vm = require("vm");
const ctx = {samples: JSON.parse(process.argv[2])};
vm.createContext(ctx);
vm.runInContext(fs.readFileSync(process.argv[1], "utf8") + `
this.out = {};
for (const [lang, L] of Object.entries(LANGS)) {
  const lines = {};
  for (const [kind, note] of Object.entries(samples)) {
    if (L.notes[kind]) lines[kind] = L.notes[kind](note, "why");
  }
  this.out[lang] = {kinds: Object.keys(L.notes), lines};
}`, ctx);
console.log(JSON.stringify(ctx.out));
"""
SAMPLES = {"refused": {"refused": "G", "phase": "attempt", "why": "take a G egg"},
           "prompt": {"prompt": "put the pole back"}, "phase": {"phase": "pick", "turn": 0, "demand": None},
           "started": {"started": {"players": 3, "variant": "fast"}},
           "menu": {"menu": {"players": 4, "variant": "standard"}}, "nest": {"nest": {"full": True}},
           "error": {"error": "unknown button 'X'"},
           "unchecked": {"unchecked": "no calibration: the nest is taken as the game's"}}


def page_notes():
    """{language: {"kinds": [...], "lines": {kind: text}}} from the play page's i18n.js."""
    out = subprocess.run(["node", "-e", _PAGE_NOTES, str(I18N), json.dumps(SAMPLES)], capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout)


def page_note_words():
    """{language: [note kinds]} that the play page's i18n.js words."""
    return {lang: v["kinds"] for lang, v in page_notes().items()}


def unworded(kinds, page):
    """(where, kind) for each note kind that nest.words (every language) or the page does not word."""
    missing = [(f"nest.words {lang}", k) for lang in LANGUAGES for k in kinds if k not in Words(lang)["note"]]
    missing += [(f"i18n.js {lang}", k) for lang in sorted(page) for k in kinds if k not in page[lang]]
    return missing


def test_the_host_words_every_note_kind():
    page = page_note_words()
    assert sorted(page) == sorted(LANGUAGES)
    assert unworded(vocab.NOTES, page) == []
    assert sorted(SAMPLES) == sorted(vocab.NOTES)  # a sample of each kind, worded below
    for lang, words in page_notes().items():
        for kind, line in words["lines"].items():
            assert line and "undefined" not in line and "[object" not in line, (lang, kind, line)
        assert sorted(words["lines"]) == ["error", "menu", "prompt", "refused", "started", "unchecked"]
    for lang in LANGUAGES:
        for kind, note in SAMPLES.items():
            line = Words(lang).note(note)
            assert line and "{" not in line and "None" not in line, (lang, kind, line)


def test_a_note_kind_the_host_does_not_word_is_caught():
    # Planted: the firmware gains a kind of note (an `undo`, say) that no host words yet.
    page = page_note_words()
    missing = unworded(vocab.NOTES + ("undo",), page)
    assert missing == ([(f"nest.words {lang}", "undo") for lang in LANGUAGES]
                       + [(f"i18n.js {lang}", "undo") for lang in sorted(page)])


def outside_the_vocabulary(notes):
    """The notes whose kind is neither in gulo.vocab.NOTES nor one the app carries out itself."""
    return [n for n in notes if note_kind(n) is None and not any(k in n for k in vocab.APP_NOTES)]


def table_session(seed, steps=70):
    """A random session at the table (nest.world -> the device's turn flow): every button in any
    phase, the menu, eggs taken steady or shaky (the demanded one or another), eggs dropped, the
    pole knocked and seated, eggs poured back. Returns every note the flow made."""
    rng = random.Random(seed)
    table = Table(seed=seed)
    table.settle(2000)
    for _ in range(steps):
        what = rng.randrange(7)
        t = table.t + 100
        if what <= 1:
            table.press(rng.choice(vocab.BUTTONS))
        elif what == 2:
            demand = table.game.demand or rng.choice(vocab.EGG_COLOURS)
            colour = demand if rng.random() < 0.7 else rng.choice(vocab.EGG_COLOURS)
            if table.world.state()["nest"][colour] > 0:
                table.world.take(t, colour, rng.choice(("steady", "shaky")))
        elif what == 3:
            colour = rng.choice(vocab.EGG_COLOURS)
            if table.world.state()["nest"][colour] > 0:
                table.world.drop(t, colour)
        elif what == 4:
            table.world.knock_pole(t) if table.seated else table.world.seat_pole(t)
        elif what == 5:
            table.world.pour_back(t)
        table.run(rng.choice((300, 1200, 2500)))
    return table.notes


def test_the_turn_flow_makes_only_notes_of_the_vocabulary_and_the_host_words_each():
    notes = [n for seed in (1, 2, 3) for n in table_session(seed)]
    assert outside_the_vocabulary(notes) == []
    kinds = {note_kind(n) for n in notes} - {None}
    assert {"phase", "prompt", "refused", "nest", "menu"} <= kinds, kinds  # the session reached them
    for lang in LANGUAGES:
        words = Words(lang)
        for n in notes:
            if note_kind(n):
                assert isinstance(words.note(n), str) and "{" not in words.note(n), (lang, n)


def test_a_note_the_vocabulary_does_not_know_is_caught():
    # Planted: a note of a kind that gulo.vocab.NOTES does not list.
    notes = table_session(1, steps=10)
    assert outside_the_vocabulary(notes + [{"rewind": {"turn": 1}}]) == [{"rewind": {"turn": 1}}]


def test_the_pin_map_names_every_button_and_the_console_takes_them():
    for name, pin in zip(vocab.BUTTONS, vocab.BUTTON_PIN_NAMES, strict=True):
        assert f"BUTTON_{pin}" in board.PINS
        assert console.parse(json.dumps({"cmd": "press", "button": name}))[1] == {"button": name}
    assert console.MAX_LINE == vocab.MAX_LINE


def test_the_board_harness_refuses_a_note_of_a_kind_the_vocabulary_lacks():
    # testkit.boardkit's handling of console lines, without a board: a known note passes, a planted
    # `undo` note (a firmware that gained a kind) raises Mismatch.
    nest = NestUnderTest(None, auto=False)   # no board: the line handling alone
    nest.handle({"ev": "note", "note": {"phase": "pick", "turn": 0, "demand": None}})
    assert nest.phase == ("pick", 0, None)
    with pytest.raises(Mismatch, match="undo"):
        nest.handle({"ev": "note", "note": {"undo": {"turn": 0}}})
