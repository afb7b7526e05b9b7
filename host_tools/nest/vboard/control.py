"""The virtual board's control channel: JSON lines over a loopback TCP socket.

One request per line, one answer per line, in order: `{"op": "take", "colour": "R"}` ->
`{"ok": true, ...}` or `{"ok": false, "error": "..."}`; an `"id"` in a request is echoed back.
The operations are listed in docs/virtual-board.md. A client that disconnects, sends garbage or
times out only ever loses its own connection: the board keeps running.
"""

import json
import socket
import socketserver
import threading

from nest.errors import NestError

WORLD_ACTIONS = ("take", "touch", "drop", "knock_pole", "seat_pole", "pour_back", "load")
FAULTS = ("hx711_unplugged", "noisy", "reed_stuck", "hang")
PASS_THROUGH = ("ping", "pins", "pin", "reset", "power_cut", "wdt", "mem", "timing")


def handle(board, req):
    """Answer one control request for `board` (a VirtualBoard)."""
    op = req.get("op")
    hw = board.hw
    if op in WORLD_ACTIONS:
        return _world_action(board, op, req)
    if op in ("press", "release"):
        name = str(req.get("button", "")).upper()
        pin = hw["buttons"].get(name)
        if pin is None:
            names = ", ".join(sorted(hw["buttons"]))
            return {"ok": False, "error": f"unknown button {name!r} (one of {names})"}
        # buttons pull the pin to GND: active low
        return board.board_request({"op": "pin", "pin": pin, "level": 0 if op == "press" else None})
    if op == "fault":
        return _fault(board, req)
    if op == "leds":
        return board.board_request({"op": "leds", "pin": hw["LEDS"]})
    if op == "buzzer":
        return board.board_request({"op": "pwm", "pin": hw["BUZZER"]})
    if op == "world":
        w, t = board.world, board.world_ms()
        return {"ok": True, "t_ms": t, "nest": w.nest_at(t), "pole_seated": w.pole_is_seated(t),
                "grams": w.clean_grams(t), "truth": w.events()}
    if op in PASS_THROUGH:
        return board.board_request(req)
    return {"ok": False, "error": f"unknown op {op!r}"}


def _world_action(board, op, req):
    t = board.world_ms() + int(req.get("in_ms", 0))
    entry = {"a": op, "t": t}
    w = board.world
    try:
        if op in ("take", "drop"):
            colour = str(req.get("colour", "")).upper()
            entry["colour"] = colour
            if op == "take":
                entry["hand"] = req.get("hand", "steady")
                until = w.take(t, colour, entry["hand"])
            else:
                until = w.drop(t, colour)
        elif op == "touch":
            entry["hand"] = req.get("hand", "steady")
            until = w.touch(t, entry["hand"])
        elif op == "load":
            entry["grams"] = _load_grams(w, req)
            until = w.load(t, entry["grams"])
        elif op == "pour_back" and req.get("eggs") is not None:
            if not isinstance(req["eggs"], dict):
                raise ValueError("pour_back: eggs must be an object {colour: count}")
            entry["eggs"] = req["eggs"]
            until = w.pour_back(t, req["eggs"])
        else:
            until = getattr(w, op)(t)
    except ValueError as e:
        return {"ok": False, "error": str(e)}
    answer = board.board_request({"op": "world", "entry": entry})
    if answer.get("ok"):
        answer.update({"t_ms": t, "until_ms": until})
    return answer


def _load_grams(world, req):
    """`load`: {"grams": G} or {"colour": C, "count": N} (eggs of the world's masses, not taken
    from the nest); negative lifts it off again."""
    if "colour" in req:
        colour = str(req["colour"]).upper()
        if colour not in world.masses:
            raise ValueError(f"unknown colour {colour!r}")
        count = req.get("count", 1)
        if not isinstance(count, int) or isinstance(count, bool):
            raise ValueError("count must be a whole number")
        return world.masses[colour] * count
    grams = req.get("grams")
    if not isinstance(grams, (int, float)) or isinstance(grams, bool) or not -5000 <= grams <= 5000:
        raise ValueError("load needs grams (-5000..5000) or colour and count")
    return float(grams)


def _fault(board, req):
    name, value = req.get("name"), req.get("value", True)
    if name == "reed_stuck":
        # the reed pin reads `value` (0 or 1) whatever the pole does; null frees it
        level = None if value is None or value is False else int(value) & 1
        if value is True:
            level = 0
        return board.board_request({"op": "pin", "pin": board.hw["REED"], "level": level})
    if name == "hang":
        # the firmware's next HX711 read never returns (a task stuck in a driver), in this boot
        # only: the watchdog's reset boots a board that runs normally again
        entry = {"a": "set", "name": "hang_at", "value": board.world_ms()}
        return board.board_request({"op": "world", "entry": entry})
    if name in ("hx711_unplugged", "noisy"):
        attr = "unplugged" if name == "hx711_unplugged" else "noisy"
        setattr(board.world, attr, bool(value))
        return board.board_request({"op": "world", "entry": {"a": "set", "name": attr, "value": bool(value)}})
    return {"ok": False, "error": f"unknown fault {name!r} (one of {', '.join(FAULTS)})"}


class _Handler(socketserver.StreamRequestHandler):
    def handle(self):
        for raw in self.rfile:
            try:
                req = json.loads(raw)
                if not isinstance(req, dict):
                    raise ValueError("a request is a JSON object")
            except ValueError as e:
                answer = {"ok": False, "error": f"bad request: {e}"}
            else:
                try:
                    answer = handle(self.server.board, req)
                except Exception as e:  # noqa: BLE001  (one bad request must not stop the channel)
                    answer = {"ok": False, "error": f"{type(e).__name__}: {e}"}
                if "id" in req:
                    answer["id"] = req["id"]
            try:
                self.wfile.write((json.dumps(answer) + "\n").encode())
            except OSError:
                return


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


class ControlServer:
    """Loopback only: the control channel can cut the board's power, so it is not on the network."""

    def __init__(self, board, port=0):
        self._server = _Server(("127.0.0.1", port), _Handler)
        self._server.board = board
        self.address = self._server.server_address
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True,
                         name="vboard-control").start()

    def close(self):
        self._server.shutdown()
        self._server.server_close()


class ControlClient:
    """A small client of the control channel; each method returns the board's answer dict and
    raises NestError when the board says no."""

    def __init__(self, address, timeout=10.0):
        self.address = tuple(address)
        self.timeout = timeout
        self._sock = None
        self._file = None
        self._lock = threading.Lock()

    def request(self, op, **fields):
        with self._lock:
            if self._sock is None:
                self._sock = socket.create_connection(self.address, timeout=self.timeout)
                self._file = self._sock.makefile("rb")
            self._sock.sendall((json.dumps({"op": op, **fields}) + "\n").encode())
            line = self._file.readline()
        if not line:
            self.close()
            raise NestError("the virtual board closed its control channel")
        answer = json.loads(line)
        if not answer.get("ok"):
            raise NestError(f"virtual board: {op}: {answer.get('error')}")
        return answer

    def close(self):
        if self._sock:
            self._file.close()
            self._sock.close()
        self._sock = self._file = None

    # conveniences for tests and scripts
    def take(self, colour, hand="steady", in_ms=0):
        return self.request("take", colour=colour, hand=hand, in_ms=in_ms)

    def drop(self, colour, in_ms=0):
        return self.request("drop", colour=colour, in_ms=in_ms)

    def knock_pole(self, in_ms=0):
        return self.request("knock_pole", in_ms=in_ms)

    def seat_pole(self, in_ms=0):
        return self.request("seat_pole", in_ms=in_ms)

    def pour_back(self, in_ms=0, eggs=None):
        return self.request("pour_back", in_ms=in_ms, eggs=eggs)

    def load(self, grams=None, colour=None, count=1, in_ms=0):
        """Put a mass on the bowl (grams, or `count` eggs of `colour`); negative lifts it off."""
        if colour is not None:
            return self.request("load", colour=colour, count=count, in_ms=in_ms)
        return self.request("load", grams=grams, in_ms=in_ms)

    def press(self, button):
        return self.request("press", button=button)

    def release(self, button):
        return self.request("release", button=button)

    def leds(self):
        return [tuple(c) for c in self.request("leds")["leds"]]

    def buzzer(self):
        return self.request("buzzer")["pwm"]

    def pins(self):
        return self.request("pins")["pins"]

    def fault(self, name, value=True):
        return self.request("fault", name=name, value=value)

    def power_cut(self, off_ms=0, in_ms=0):
        return self.request("power_cut", off_ms=off_ms, in_ms=in_ms)

    def reset(self):
        return self.request("reset")

    def world(self):
        return self.request("world")
