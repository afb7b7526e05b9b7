"""`nest monitor [--json]`: follow the board's events as they happen."""

import json
import sys
import time

from nest.boardtrust import Malformed, plain
from nest.words import Words, plural

COLOUR_NAMES = {"G": "green", "Y": "yellow", "R": "red", "B": "blue", "P": "purple"}
RED = "\033[31m"
BOLD = "\033[1m"
RESET = "\033[0m"


def add_parser(sub):
    p = sub.add_parser("monitor", help="follow the board's events (verdicts, alarms, faults)",
                       description="Follow the running nest's console: one readable line per event "
                                   "(faults and alarms in red on a terminal), or the JSON lines as "
                                   "they come with --json. Ctrl-C ends it.")
    p.add_argument("--port", help="serial port (default: the single board found)")
    p.add_argument("--json", action="store_true", help="pass the board's JSON lines through")
    p.add_argument("--seconds", type=float, default=None, help="stop after this many seconds")
    return p


def describe(ev):
    """A readable line for one console event, and whether it is bad news (fault, alarm)."""
    if isinstance(ev, Malformed):  # its shape is not its kind's (nest.boardtrust): shown, not read
        return f"MALFORMED line from the board ({ev['malformed']}): {ev['line']}", True
    kind = ev.get("ev")
    if kind == "action":
        return _action(ev["action"], ev.get("outcome") or {})
    if kind == "undo":
        out = ev.get("outcome") or {}
        player = out.get("player")
        who = f"Gulo {player + 1}" if isinstance(player, int) else "Gulo"
        demand = COLOUR_NAMES.get(out.get("demand"), out.get("demand"))
        back = out.get("undone")
        if out.get("replaced"):   # a call right after a success: the called alarm's line follows
            return f"the players call the EGG ALARM instead of the last verdict ({who})", True
        return f"UNDO by the players ({plural(back, 'action')} taken back): {who} takes {demand} again", True
    if kind == "fault":
        return f"FAULT {ev.get('what')}: {ev.get('detail')}", True
    if kind == "fault_cleared":
        return f"fault cleared: {ev.get('what')}", False
    if kind == "note":
        return _note(ev.get("note") or {})
    if kind == "ready":
        return f"ready ({'game resumed' if ev.get('resumed') else 'new game'})", False
    if kind == "state":
        st = ev.get("state") or {}
        return f"state: turn {st.get('turn')}, positions {st.get('positions')}", False
    if kind == "crash":
        return f"CRASH {ev.get('error')}", True
    if kind == "stopped":
        return "app stopped (Ctrl-C on the board's console)", False
    if kind == "recovered":
        return f"recovered: {ev.get('file')}", False
    if "re" in ev:
        ok = ev.get("ok")
        return f"answer {ev['re']}: {'ok' if ok else ev.get('error')}", not ok
    return json.dumps(ev), False


def _action(action, out):
    do = action.get("do")
    player = out.get("player")
    who = f"Gulo {player + 1}" if isinstance(player, int) else "Gulo"
    if do == "take":
        egg = action.get("egg", "?")
        event = out.get("event")
        if event == "success":
            return f"{egg} taken - success, {who} moves to {out.get('to')}", False
        return f"{egg} taken - {event}, {who}" + (f" back to {out['to']}" if "to" in out else ""), True
    if do == "alarm":
        moved = f", {who} back to {out['to']}" if "to" in out else ""
        return f"EGG ALARM ({action.get('cause')}){moved}", True
    if do == "reveal":
        demand = COLOUR_NAMES.get(out.get("demand"), out.get("demand"))
        return f"{who} reveals tile {out.get('tile')}: take {demand}", False
    if do == "choose":
        return f"{who} chooses {COLOUR_NAMES.get(action.get('colour'), action.get('colour'))}", False
    return f"{do} {json.dumps(out)}", False


def _eggs(counts):
    return ", ".join(f"{n} {COLOUR_NAMES.get(c, c)}" for c, n in sorted(counts.items()))


def _asked(note):
    """The prompt, with the eggs the nest names (its `back` and `out` fields) when it names them."""
    parts = []
    if note.get("pour"):   # the weight fits more than one change: every egg back, then out
        parts.append("pour every egg back first")
    if note.get("back"):
        parts.append(f"put back {_eggs(note['back'])}")
    if note.get("out"):
        n = sum(note["out"].values())
        parts.append(f"{_eggs(note['out'])} " + ("stays out this round: take it out" if n == 1 else
                                                  "stay out this round: take them out"))
    return "; ".join(parts) if parts else note["prompt"]


def _note(note):
    if "prompt" in note:
        return f"asks: {_asked(note)}", False
    if "phase" in note:
        extra = f" (take {note['demand']})" if note.get("demand") else ""
        return f"phase {note['phase']}{extra}", False
    if "nest" in note:
        n = note["nest"]
        if n.get("full"):
            return "nest full again", False
        if n.get("out") == 1:
            return f"egg out: {n.get('colour')}", False
        return f"{n.get('out')} eggs out together", False
    if "refused" in note:
        return f"refused {note['refused']}: {note.get('why')}", False
    # the other kinds (a new game, the menu, a line the flow did not understand) as nest.words says them
    return Words().note(note) or json.dumps(note), False


def run(args):
    from nest.boardconsole import BoardConsole
    from nest.ports import pick_port

    tty = sys.stdout.isatty()
    port = pick_port(args.port)
    with BoardConsole.open(port, probe=False) as con:
        # said at once, on stderr (stdout may be --json's stream): a quiet game looks like a hang
        print(f"connected to {port} (Ctrl-C to stop)", file=sys.stderr, flush=True)
        con.probe()
        try:
            for ev in con.events(args.seconds):
                if ev.get("ev") == "sample":
                    continue  # the raw stream is `nest diag`'s
                if args.json:
                    print(json.dumps(ev), flush=True)
                    continue
                text, bad = describe(ev)
                line = f"{time.strftime('%H:%M:%S')} {plain(text)}"
                if bad and tty:
                    line = f"{RED}{BOLD}{line}{RESET}"
                print(line, flush=True)
        except KeyboardInterrupt:
            pass  # Ctrl-C ends a monitor: not an error
    return 0
