"""The play page's appeal in real headless Chromium against `nest web` on the virtual board
(docs/rules.md, "The players have the last word"): "Undo last verdict" and "Call EGG ALARM" are
enabled only when the board says they are legal, ask before they act, and do what the firmware does
for the console; the downloaded log then replays with `nest replay` to what the page shows."""

import json
import subprocess
from pathlib import Path

import pytest
from test_web_family import browser, open_page  # noqa: F401  (browser: the module's fixture)
from test_web_play import app, kinds, settle, wait_app

from gulo.rules import Game
from testkit.web_kit import ARTIFACTS, CHROMIUM, NEST, start_web, stop_web

pytestmark = [pytest.mark.browser, pytest.mark.board, pytest.mark.timeout(300)]

SEED, PLAYERS, VARIANT = 7, 2, "standard"
WAIT_MS = 25000

if not Path(CHROMIUM).exists():
    pytest.skip("Debian's chromium is not installed (make test installs it)", allow_module_level=True)


@pytest.fixture(scope="module")
def page(browser, tmp_path_factory):  # noqa: F811  (test_web_family's fixture)
    proc, url = start_web(tmp_path_factory.mktemp("web-overrule-flash"))
    ARTIFACTS.mkdir(exist_ok=True)
    try:
        pg = open_page(browser, url)
        yield pg
        pg.context.close()
    finally:
        assert stop_web(proc), "nest web did not stop on Ctrl-C"


def enabled(page):
    """Which of the two appeal buttons are enabled, found by their accessible names."""
    return {what: page.get_by_role("button", name=name).is_enabled()
            for what, name in (("undo", "Undo last verdict"), ("call", "Call EGG ALARM"))}


def wait_enabled(page, want, timeout=WAIT_MS):
    page.wait_for_function(
        "(w) => Object.entries(w).every(([k, v]) => "
        "!document.querySelector(`button[data-appeal=${k}]`).disabled === v)", arg=want, timeout=timeout)


def confirm(page, name, yes=True):
    page.get_by_role("button", name=name).click()
    dialog = page.locator("#confirm-appeal")
    dialog.wait_for(state="visible")
    page.click("#appeal-yes" if yes else "#appeal-no")
    dialog.wait_for(state="hidden")


def replayed(page):
    with page.expect_download() as dl:
        page.click("#download")
    path = ARTIFACTS / "web-overrule.jsonl"
    dl.value.save_as(str(path))
    r = subprocess.run([str(NEST), "replay", "--json", str(path)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    lines = path.read_text().splitlines()
    return json.loads(r.stdout), [{k: v for k, v in json.loads(x).items() if k != "t"} for x in lines[1:]]


def test_undo_and_call_on_the_play_page(page):
    page.select_option("#lang", "en")
    page.select_option("#players-n", str(PLAYERS))
    page.select_option("#variant", VARIANT)
    page.check("#maker")  # the seed is the maker's
    page.fill("#seed", str(SEED))
    page.click("#new-game button[type=submit]")
    wait_app(page, "a.positions === '0,0' && a.winner === ''")
    settle(page)
    wait_app(page, "a.phase === 'pick'")
    assert enabled(page) == {"undo": False, "call": False}   # no verdict yet, nobody taking an egg

    game = Game.new(PLAYERS, VARIANT, SEED)
    page.click("button[data-button=REVEAL]")
    game.apply({"do": "reveal"})
    wait_app(page, f"a.phase === 'attempt' && a.demand === '{game.demand}'")
    wait_enabled(page, {"undo": False, "call": True})
    before = dict(app(page))
    page.click(f"#bowl .egg.c-{game.demand}:not([hidden])")
    game.apply({"do": "take", "egg": game.demand})
    wait_app(page, f"a.positions === '{','.join(map(str, game.positions))}'")
    settle(page)
    wait_enabled(page, {"undo": True, "call": False})

    # "No" changes nothing; "Yes" undoes: the same Gulo takes the same colour again.
    confirm(page, "Undo last verdict", yes=False)
    assert app(page)["positions"] == ",".join(map(str, game.positions))
    undos = kinds(page, "undo")
    confirm(page, "Undo last verdict")
    page.wait_for_function(f"history.map(describe).filter((d) => d && d[1] === 'undo').length > {undos}",
                           timeout=WAIT_MS)
    game.undo()
    # the egg goes back in (the page's pour puts back exactly the eggs that belong in the nest)
    for _ in range(3):
        if app(page)["phase"] == "attempt":
            break
        page.click("button[data-world=pour_back]")
        page.wait_for_timeout(2500)
    turn, demand = before["turn"], before["demand"]
    wait_app(page, f"a.phase === 'attempt' && a.turn === '{turn}' && a.demand === '{demand}'")
    assert app(page)["positions"] == before["positions"]
    wait_enabled(page, {"undo": False, "call": True})
    state, actions = replayed(page)
    assert actions == [{"do": "reveal"}] and state == game.state()
    page.screenshot(path=str(ARTIFACTS / "web-overrule-undo.png"), full_page=True)

    # The EGG ALARM the nest missed, called from the page.
    alarms = kinds(page, "alarm")
    confirm(page, "Call EGG ALARM")
    page.wait_for_function(f"history.map(describe).filter((d) => d && d[1] === 'alarm').length > {alarms}",
                           timeout=WAIT_MS)
    game.apply({"do": "alarm", "cause": "called"})
    assert "The players called it" in page.inner_text("#events")
    settle(page)
    wait_app(page, f"a.turn === '{game.turn}' && a.positions === '{','.join(map(str, game.positions))}'")
    state, actions = replayed(page)
    assert actions == [{"do": "reveal"}, {"do": "alarm", "cause": "called"}] and state == game.state()
    assert page.errors == []


def test_the_appeal_buttons_are_named_in_each_language(page):
    names = {"de": ("Letztes Urteil zurücknehmen", "EIERALARM ausrufen"),
             "fr": ("Annuler le dernier verdict", "Déclarer l'ALARME"),
             "en": ("Undo last verdict", "Call EGG ALARM")}
    for lang, (undo, call) in names.items():
        page.select_option("#lang", lang)
        assert page.get_by_role("button", name=undo).count() == 1
        assert page.get_by_role("button", name=call).count() == 1
        assert page.get_by_role("group", name={"de": "die Spieler entscheiden selbst",
                                               "fr": "les joueurs ont le dernier mot",
                                               "en": "the players overrule the nest"}[lang]).count() == 1


def test_planted_buttons_that_ignore_the_board_fail_the_check(page):
    """The page with its appeal buttons always enabled (the board's "appeal" ignored): the check
    that they follow the board fails on it."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    wait_app(page, "a.phase === 'pick'")
    wait_enabled(page, {"undo": True, "call": False})
    page.evaluate("""() => {
        const real = showStatus;
        showStatus = (st) => {
            real(st);
            for (const b of document.querySelectorAll("button[data-appeal]")) b.disabled = false;
        };
    }""")
    try:
        page.click("button[data-world=knock_pole]")   # a new status (the nest asks for the pole)
        wait_app(page, "a.phase === 'settle'")
        with pytest.raises(PlaywrightTimeout):
            wait_enabled(page, {"undo": True, "call": False}, timeout=3000)
    finally:
        page.reload()
        page.wait_for_selector("#app[data-phase]:not([data-phase=''])", timeout=WAIT_MS)
        page.click("button[data-world=seat_pole]")
    # the page as served follows the board again
    wait_enabled(page, {"undo": True, "call": False})
