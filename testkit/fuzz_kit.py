"""Bounded fuzzing of the nest's inputs from outside, loopback only (issue 17): the play page's
WebSocket (`nest web`), game logs for `nest replay`. (The console's fuzz is testkit.boardkit.fuzz_console.)
Each fuzzer returns its counts; any outcome other than a clear refusal (or a good answer) raises
FuzzFailure naming the input."""

import asyncio
import json
import subprocess
import sys
from pathlib import Path

from gulo.gamelog import encode, setup_record
from gulo.rules import Game
from nest.errors import NestError
from nest.replay import ReplayError, replay_file
from testkit.web_kit import start_web, stop_web  # noqa: F401 (the drills call them through this module)

ROOT = Path(__file__).resolve().parent.parent
NEST = Path(sys.executable).with_name("nest")


class FuzzFailure(AssertionError):
    """An input that got something other than an answer or a clear refusal."""


# ---- nest replay ---------------------------------------------------------------------------------
def a_log(rng):
    """A valid log's lines: a set-up and a few legal actions."""
    g = Game.new(rng.choice((2, 3, 4)), rng.choice(("standard", "fast")), rng.randrange(10**6))
    lines = [encode(setup_record(g))]
    for _ in range(rng.randrange(6)):
        if g.winner is not None:
            break
        a = {"do": "reveal"} if g.demand is None and g.can_reveal() else (
            {"do": "take", "egg": g.demand} if g.demand else {"do": "alarm", "cause": "pole"})
        try:
            g.apply(dict(a))
        except ValueError:
            break
        lines.append(json.dumps(a))
    return lines


def mangled_log(rng):
    """Bytes of a log with one kind of damage (or none)."""
    lines = a_log(rng)
    kind = rng.randrange(10)
    if kind == 0:    # deep nesting
        lines.insert(rng.randrange(len(lines) + 1), rng.choice("[{") * rng.choice((40, 1000, 100000)))
    elif kind == 1:  # random bytes
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 2000)))
    elif kind == 2:  # truncated somewhere
        text = "\n".join(lines)
        return text[:rng.randrange(len(text))].encode()
    elif kind == 3:  # a line of the wrong type
        lines[rng.randrange(len(lines))] = json.dumps(rng.choice([[], 1, "x", None, {"do": 5}, {"setup": 1},
                                                                  {"do": "take", "egg": ["R"]}]))
    elif kind == 4:  # huge numbers and odd floats
        lines.append(rng.choice(['{"do": "take", "egg": 1e999}', '{"t": NaN, "do": "reveal"}',
                                 '{"do": "reveal", "t": ' + "9" * 5000 + "}"]))
    elif kind == 5:  # a long line with no newline
        return (("\n".join(lines) + "\n") + "x" * rng.choice((1000, 70000, 200000))).encode()
    elif kind == 6:  # swap two lines
        if len(lines) > 2:
            i, j = rng.randrange(1, len(lines)), rng.randrange(1, len(lines))
            lines[i], lines[j] = lines[j], lines[i]
    elif kind == 7:  # blank lines, CRLF
        return ("\r\n".join(lines) + "\r\n\r\n\n").encode()
    elif kind == 8:  # not UTF-8 in a string
        return ("\n".join(lines) + "\n").encode() + b'{"do": "\xff"}\n'
    return ("\n".join(lines) + "\n").encode()   # kind 9: intact


def fuzz_replay(folder, rng, count, cli_every=50):
    """`count` mangled logs through nest.replay.replay_file (every `cli_every`-th also through the
    `nest replay` command: exit 0 or 2, never a traceback). Counts by outcome."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    stats = {"logs": 0, "replayed": 0, "refused": 0, "cli": 0}
    for i in range(count):
        path = folder / f"fuzz-{i}.jsonl"
        path.write_bytes(mangled_log(rng))
        try:
            replay_file(path)
            stats["replayed"] += 1
        except ReplayError as e:
            if not str(e).startswith(f"{path}:"):
                raise FuzzFailure(f"{path}: a refusal without FILE:LINE: {e}") from e
            stats["refused"] += 1
        except NestError as e:
            raise FuzzFailure(f"{path}: {e}") from e
        except Exception as e:
            raise FuzzFailure(f"{path}: {type(e).__name__}: {e}") from e
        if i % cli_every == 0:
            r = subprocess.run([str(NEST), "replay", "--json", str(path)], capture_output=True, text=True,
                               timeout=60)
            if r.returncode not in (0, 2) or "Traceback" in r.stderr:
                raise FuzzFailure(f"nest replay {path}: exit {r.returncode}: {r.stderr[-500:]}")
            stats["cli"] += 1
        stats["logs"] += 1
        path.unlink()
    return stats


# ---- the play page's WebSocket ------------------------------------------------------------------
def ws_message(rng):
    """One fuzzed page message (text) that must be refused: never a valid state-changing request."""
    kind = rng.randrange(9)
    if kind == 0:
        return "".join(chr(rng.randrange(1, 0x3000)) for _ in range(rng.randrange(1, 200)))
    if kind == 1:
        return json.dumps(rng.choice([[1], 2, "op", None, True, 1.5, {}, {"op": None}, {"op": ["button"]}]))
    if kind == 2:
        return rng.choice("[{") * rng.choice((33, 500, 2000))
    if kind == 3:
        names = ["", "PURPLE", 7, None, "reveal!", "x" * 300]
        return json.dumps({"op": "button", "button": rng.choice(names)})
    if kind == 4:
        return json.dumps({"op": "take", "colour": rng.choice(["X", "", "RR", 1, None]), "hand": "steady"})
    if kind == 5:
        return json.dumps({"op": "take", "colour": "R", "hand": rng.choice(["wild", 3, None]),
                           "chance": rng.choice([0, True, -1, 2, "x", None])})
    if kind == 6:
        return json.dumps({"op": "take", "colour": "R", "hand": "shaky",
                           "chance": rng.choice([True, False, -0.1, 1.5, "0.5", [0.5], 1e999])})
    if kind == 7:
        field, bad = rng.choice([("players", [99, 1, "x", True, [2], 2.5]),
                                 ("variant", ["slow", 1, True, [""]]),
                                 ("seed", [-5, "x", True, [2], 2**40, 1.5])])
        return json.dumps({"op": "new", field: rng.choice(bad)})
    return json.dumps({"op": rng.choice(["fly", "", "BUTTON", "exec", "power_cut", "__init__"])})


async def _fuzz_ws(url, rng, count):
    import aiohttp

    stats = {"sent": 0, "refused": 0, "too_big": 0}
    async with aiohttp.ClientSession() as s:
        async with s.get(url + "/log.jsonl") as r:
            log_before = await r.text()
        ws = await s.ws_connect(url + "/ws")
        for _ in range(count):
            text = ws_message(rng) if rng.random() > 0.02 else "x" * rng.choice((5000, 300_000))
            await ws.send_str(text)
            stats["sent"] += 1
            while True:
                msg = await ws.receive(timeout=30)
                if msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
                    if len(text) <= 4096 or msg.data != 1009:
                        raise FuzzFailure(f"socket closed ({msg.data}) on {text[:200]!r}")
                    stats["too_big"] += 1
                    ws = await s.ws_connect(url + "/ws")
                    break
                if msg.type != aiohttp.WSMsgType.TEXT:
                    raise FuzzFailure(f"{msg.type} on {text[:200]!r}")
                obj = json.loads(msg.data)
                if obj.get("type") == "done":
                    if obj.get("ok") is not False or not isinstance(obj.get("error"), str):
                        raise FuzzFailure(f"not refused: {text[:200]!r} -> {obj}")
                    stats["refused"] += 1
                    break
        await ws.close()
        async with s.get(url + "/log.jsonl") as r:
            if await r.text() != log_before:
                raise FuzzFailure("the fuzz changed the game log")
    return stats


def fuzz_web(folder, rng, count):
    """`count` fuzzed messages to a fresh `nest web`'s /ws: each refused with a reason (or, over
    4 KB, the socket closed with 1009 and a new one opened); the game log unchanged."""
    proc, url = start_web(Path(folder) / "web-flash")
    try:
        asyncio.run(_ws_ready(url))
        return asyncio.run(_fuzz_ws(url, rng, count))
    finally:
        stop_web(proc)


async def _ws_ready(url):
    """A game on the board first (the log download needs one)."""
    import aiohttp

    async with aiohttp.ClientSession() as s, s.ws_connect(url + "/ws") as ws:
        await ws.send_str(json.dumps({"op": "new", "players": 2, "variant": "standard", "seed": 3}))
        while True:
            obj = json.loads((await ws.receive(timeout=30)).data)
            if obj.get("type") == "done":
                if not obj.get("ok"):
                    raise FuzzFailure(f"new game refused: {obj}")
                return
