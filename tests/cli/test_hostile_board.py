"""The host tools against a board that lies (testkit.hostile_board): every line it sends is
checked against its kind's schema before a tool reads it (nest.boardtrust.checked, in the console
client every tool shares), and its words reach the terminal with their control characters shown,
never obeyed (nest.boardtrust.plain). Before, `monitor` ended in a traceback on these event shapes,
`ports` on a /.nest/version.json holding a string, `nest test` on a result line that was not JSON,
and escape sequences went to the terminal as they came from `monitor`, `ports`, `logs pull`,
`deploy --dry-run`, `diag` and `test`."""

import argparse
import json

import pytest

from nest import boardinfo, cmd_monitor
from nest.boardconsole import BoardConsole
from nest.boardtest import result_line
from nest.boardtrust import Malformed, checked, plain
from nest.cmd_diag import View
from nest.cmd_logs import pull
from nest.deploy import DeployReport
from nest.errors import NestError
from testkit.hostile_board import BAD_EVENTS, ESCAPES, LyingConsole, LyingLink, LyingSerial, as_lines

CONTROL = [chr(c) for c in range(32) if chr(c) not in "\n"] + ["\x7f", "\x9b", "\u202e", "\u2028"]


def no_control(text):
    return not any(c in text for c in CONTROL)


def console(lines, answer=None):
    return BoardConsole(LyingSerial(as_lines(lines), answer), "the lying board")


def monitor_on_the_lying_board(monkeypatch, lines):
    """`nest monitor` run against the lying board: its port picked and opened there (its status
    asked and answered: the lies are in the events that follow)."""
    con = console(lines)
    monkeypatch.setattr("nest.ports.pick_port", lambda port: "/dev/lying")
    monkeypatch.setattr(BoardConsole, "open", classmethod(lambda cls, port, baud=0, probe=True: con))
    monkeypatch.setattr(con, "probe", lambda: None)
    return cmd_monitor.run(argparse.Namespace(json=False, seconds=0.5, port=None))


def test_plain_shows_every_control_character_and_keeps_the_rest():
    assert plain("egg R \u00e9\u00df \U0001f95a 1 < 2") == "egg R \u00e9\u00df \U0001f95a 1 < 2"
    assert plain("\x1b[2J") == "\\x1b[2J" and plain("a\nb") == "a\\x0ab"
    assert plain("a\nb", newlines=True) == "a\nb"
    assert no_control(plain(ESCAPES)) and no_control(plain("".join(CONTROL)))


@pytest.mark.parametrize("ev", BAD_EVENTS, ids=lambda e: json.dumps(e)[:40])
def test_monitor_shows_a_malformed_event_and_goes_on(ev, monkeypatch, capsys):
    good = {"ev": "fault", "what": "hx711", "detail": "unplugged"}
    assert monitor_on_the_lying_board(monkeypatch, [ev, good]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2, out
    assert "MALFORMED line from the board" in out[0] and "FAULT hx711: unplugged" in out[1], out


def test_every_bad_event_fails_its_schema_and_the_diag_view_takes_it():
    view = View()
    for ev in BAD_EVENTS:
        with pytest.raises(ValueError):
            checked(ev)
    for ev in console(BAD_EVENTS).events(0.3):
        assert isinstance(ev, Malformed)
        view.event(ev)
        assert "MALFORMED" in view.last_event and no_control(view.last_event)


def test_monitor_and_diag_print_the_board_words_with_control_characters_shown(monkeypatch, capsys):
    lines = [{"ev": "fault", "what": "hx711", "detail": ESCAPES}, {"ev": "crash", "error": ESCAPES},
             {"ev": "note", "note": {"refused": ESCAPES, "why": ESCAPES}}, {"ev": "mystery", "x": ESCAPES}]
    monitor_on_the_lying_board(monkeypatch, lines)
    out = capsys.readouterr().out
    assert out.count("\n") == 4 and no_control(out.replace("\n", "")), out
    view = View()
    for ev in console(lines).events(0.3):
        view.event(ev)
        assert no_control(view.last_event)


def test_a_malformed_answer_fails_the_request_at_once_with_a_clear_error():
    con = console([], answer=lambda c: {"re": c["cmd"], "id": c["id"], "ok": True, "logs": "0001.jsonl"})
    with pytest.raises(NestError, match=r"malformed line: answer to logs\.logs: not a list"):
        con.request("logs", timeout=5)


def test_a_refusal_with_escapes_is_a_plain_error():
    con = console([], answer=lambda cmd: {"re": cmd["cmd"], "id": cmd["id"], "ok": False, "error": ESCAPES})
    with pytest.raises(NestError) as e:
        con.request("status")
    assert no_control(str(e.value))


def test_logs_pull_errors_show_the_board_words_plain(tmp_path):
    board = LyingConsole(answers={"logs": {"logs": ["0001.jsonl"]},
                                  "log": lambda name: {"ok": False, "error": ESCAPES}})
    with pytest.raises(NestError) as e:
        pull(board, tmp_path / "out")
    assert "refused log 0001.jsonl" in str(e.value) and no_control(str(e.value))
    with pytest.raises(NestError) as e:
        pull(LyingConsole(answers={"logs": {"logs": ESCAPES}}), tmp_path / "out")
    assert no_control(str(e.value))


@pytest.mark.parametrize("record", ["a string", 7, [1], {"version": ESCAPES, "tree": 3}, {"version": {}}])
def test_ports_describes_a_board_whose_version_record_is_not_one(record):
    info = boardinfo.identify(LyingLink(identity={"micropython": "1.29.0", "machine": "ESP32", "build": "",
                                                  "nest": record}))
    text = boardinfo.describe(info)
    assert text.startswith("MicroPython 1.29.0, ESP32; nest firmware record unreadable") and no_control(text)


def test_ports_shows_the_board_words_plain_and_refuses_an_identity_of_another_shape():
    lies = {"micropython": ESCAPES, "machine": ESCAPES, "build": ESCAPES,
            "nest": {"version": ESCAPES, "tree": ESCAPES}}
    good = boardinfo.identify(LyingLink(identity=lies))
    assert no_control(boardinfo.describe(good))
    for identity in ("x", {"micropython": 1, "machine": "m"}, {"machine": "m"}, None):
        with pytest.raises(NestError, match="malformed"):
            boardinfo.identify(LyingLink(identity=identity))


def test_deploy_dry_run_shows_the_board_names_plain():
    report = DeployReport("/dev/ttyUSB0", True, send=["gulo/app.mpy"], delete=[ESCAPES + ".mpy"],
                          keep=["main.py"])
    lines = report.plan_lines()
    assert len(lines) == 3 and all(no_control(line) for line in lines)


@pytest.mark.parametrize("line", ["not json", "", '{"ok": true}', '{"test": "m::f", "ok": "yes"}', "[1]",
                                  '{"test": "m::f", "ok": false, "error": 7}', '{"test": 1, "ok": true}'])
def test_nest_test_takes_a_broken_result_line_as_a_failed_test(line):
    got = result_line(line)
    assert isinstance(got, str) and no_control(got), got


def test_nest_test_reads_a_good_result_line():
    assert result_line('{"test": "m::f", "ok": true, "ms": 3}') == {"test": "m::f", "ok": True, "ms": 3}


def test_an_io_answer_whose_leds_are_not_hex_fails_its_request():
    con = console([], answer=lambda c: {"re": c["cmd"], "id": c["id"], "ok": True, "buttons": {},
                                        "leds": "zz0011"})
    with pytest.raises(NestError, match="leds: 'zz0011' is not RGB hex"):
        con.request("io")
