"""The virtual board's control channel: JSON lines over a loopback TCP socket.

One request per line, one answer per line, in order: `{"op": "take", "colour": "R"}` ->
`{"ok": true, ...}` or `{"ok": false, "error": "..."}`; an `"id"` in a request is echoed back.
The operations are listed in docs/virtual-board.md. A client that disconnects, sends garbage or
times out only ever loses its own connection: the board keeps running.

The channel can cut the board's power, and any web page can make a browser send an HTTP request
to a loopback port (JSON lines in a POST body would be executed). So a connection's first
line must be `{"token": T}`, T the run's secret (`ControlServer.token`, also carried by
`board.control_address`, so a ControlClient built from that address sends it by itself), and a
connection that starts like an HTTP request is closed unanswered.
"""

import json
import re
import secrets
import socket
import socketserver
import sys
import threading

from nest.errors import NestError

WORLD_ACTIONS = ("take", "touch", "drop", "knock_pole", "seat_pole", "pour_back", "load")
FAULTS = ("hx711_unplugged", "noisy", "reed_stuck", "hang", "raise")
PASS_THROUGH = ("ping", "pins", "pin", "reset", "power_cut", "wdt", "mem", "timing", "flash_ops")


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
        return board.board_request({"op": "pwm", "pin": hw["BUZZER"], "since": req.get("since")})
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
        board.save_world()
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
    if name == "raise":
        # the firmware's next write to the LED strip raises OSError, once, in this boot only (a
        # driver that fails: the app's exception handler reports it and resets the board)
        entry = {"a": "set", "name": "raise_at", "value": board.world_ms()}
        return board.board_request({"op": "world", "entry": entry})
    if name in ("hx711_unplugged", "noisy"):
        attr = "unplugged" if name == "hx711_unplugged" else "noisy"
        setattr(board.world, attr, bool(value))
        return board.board_request({"op": "world", "entry": {"a": "set", "name": attr, "value": bool(value)}})
    return {"ok": False, "error": f"unknown fault {name!r} (one of {', '.join(FAULTS)})"}


MAX_REQUEST = 4096  # bytes in a request line: the longest real one is ~100
# A connection must send its token line within FIRST_LINE_S (a ControlClient sends it as it
# connects); at most MAX_CONNECTIONS at once (a thread each), one more is closed unanswered.
# Unbounded, 200 idle connections without a token stayed open for 100 s and more.
FIRST_LINE_S = 5.0
MAX_CONNECTIONS = 16
# The request line of HTTP/1.x (RFC 9112 section 3: method SP request-target SP HTTP-version).
_HTTP = re.compile(rb"^[A-Z]+ \S+ HTTP/\d")


class ControlAddress(tuple):
    """(host, port) of a control channel, carrying the run's token (`.token`) along: code that
    builds a ControlClient from `board.control_address` keeps working and sends it unasked."""

    token: str | None

    def __new__(cls, address, token=None):
        obj = super().__new__(cls, tuple(address))
        obj.token = token
        return obj


def _greeting_refused(server, raw):
    """None if `raw` (a connection's first line) is the run's token, else why not."""
    if _HTTP.match(raw):
        return "http"
    try:
        hello = json.loads(raw)
    except (ValueError, RecursionError):
        hello = None
    if not isinstance(hello, dict) or not isinstance(hello.get("token"), str) or \
            not secrets.compare_digest(hello["token"], server.token):
        return "the first line must be {\"token\": ...}, the token of this run (nest sim prints it)"
    return None


class _Handler(socketserver.StreamRequestHandler):
    def handle(self):
        self.connection.settimeout(FIRST_LINE_S)
        try:
            first = self.rfile.readline(MAX_REQUEST + 1)
        except TimeoutError:
            return  # no token in time: closed unanswered
        self.connection.settimeout(None)  # the token's holder may wait between requests
        why = _greeting_refused(self.server, first)
        if why == "http":
            return  # a browser's request (a page on any site can send one): no answer at all
        if not self._answer({"ok": False, "error": why} if why else {"ok": True}) or why:
            return
        while True:
            raw = self.rfile.readline(MAX_REQUEST + 1)
            if not raw:
                return
            if len(raw) > MAX_REQUEST:
                self._answer({"ok": False, "error": f"bad request: longer than {MAX_REQUEST} bytes"})
                return
            if not self._one(raw):
                return

    def _answer(self, answer):
        try:
            self.wfile.write((json.dumps(answer) + "\n").encode())
            return True
        except OSError:
            return False

    def _one(self, raw):
        """Answer one request line; False once the client is gone."""
        try:
            req = json.loads(raw)
            if not isinstance(req, dict):
                raise ValueError("a request is a JSON object")
        except (ValueError, RecursionError) as e:
            return self._answer({"ok": False, "error": f"bad request: {e}"})
        try:
            answer = handle(self.server.board, req)
        except Exception as e:  # noqa: BLE001  (one bad request must not stop the channel)
            answer = {"ok": False, "error": f"{type(e).__name__}: {e}"}
        if "id" in req:
            answer["id"] = req["id"]
        return self._answer(answer)


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, *args):
        super().__init__(*args)
        self.active = 0
        self._count = threading.Lock()

    def verify_request(self, request, client_address):
        """Past MAX_CONNECTIONS a connection is closed as it comes (socketserver then calls
        shutdown_request on it)."""
        with self._count:
            if self.active >= MAX_CONNECTIONS:
                return False
            self.active += 1
            return True

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            with self._count:
                self.active -= 1

    def handle_error(self, request, client_address):
        """A client gone mid-request (reset, broken pipe) loses its own connection, silently: only
        a fault of the channel itself is worth a traceback on `nest sim`'s terminal."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class ControlServer:
    """Loopback only: the control channel can cut the board's power, so it is not on the network."""

    def __init__(self, board, port=0):
        self._server = _Server(("127.0.0.1", port), _Handler)
        self._server.board = board
        self.token = self._server.token = secrets.token_hex(16)
        self.address = ControlAddress(self._server.server_address, self.token)
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True,
                         name="vboard-control").start()

    def close(self):
        self._server.shutdown()
        self._server.server_close()


class ControlClient:
    """A small client of the control channel; each method returns the board's answer dict and
    raises NestError when the board says no."""

    def __init__(self, address, timeout=10.0, token=None):
        self.address = tuple(address)
        self.token = token if token is not None else getattr(address, "token", None)
        self.timeout = timeout
        self._sock = None
        self._file = None
        self._lock = threading.Lock()

    def request(self, op, **fields):
        with self._lock:
            if self._sock is None:
                self._connect()
            self._sock.sendall((json.dumps({"op": op, **fields}) + "\n").encode())
            line = self._file.readline()
        if not line:
            self.close()
            raise NestError("the virtual board closed its control channel")
        answer = json.loads(line)
        if not answer.get("ok"):
            raise NestError(f"virtual board: {op}: {answer.get('error')}")
        return answer

    def _connect(self):
        self._sock = socket.create_connection(self.address, timeout=self.timeout)
        self._file = self._sock.makefile("rb")
        self._sock.sendall((json.dumps({"token": self.token}) + "\n").encode())
        hello = self._file.readline()
        if not hello or not json.loads(hello).get("ok"):
            self.close()
            raise NestError("the virtual board refused the control channel's token "
                            f"({json.loads(hello).get('error') if hello else 'connection closed'})")

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

    def buzzer_log(self, since_ms):
        """Every write to the buzzer PWM from world time `since_ms` on, oldest first, as
        {"t_ms", "freq", "duty_u16"}: a 160 ms tone may be over before a poll sees it."""
        return self.request("buzzer", since=since_ms)["log"]

    def sounded(self, freq, since_ms):
        """World ms of the first write since `since_ms` that sounds `freq` Hz, or None."""
        return next((e["t_ms"] for e in self.buzzer_log(since_ms) if e["freq"] == freq and e["duty_u16"] > 0),
                    None)

    def pins(self):
        return self.request("pins")["pins"]

    def fault(self, name, value=True):
        return self.request("fault", name=name, value=value)

    def power_cut(self, off_ms=0, in_ms=0, at_op=None):
        """The power cut now, `in_ms` from now, or (at_op N) right before the N-th flash operation
        from now (a file opened for writing, a write, a close, a rename: vboard/powercut.mjs)."""
        if at_op is not None:
            return self.request("power_cut", off_ms=off_ms, at_op=at_op)
        return self.request("power_cut", off_ms=off_ms, in_ms=in_ms)

    def flash_ops(self):
        """Flash operations counted so far, the last aimed cut and the files it tore."""
        return self.request("flash_ops")

    def reset(self):
        return self.request("reset")

    def world(self):
        return self.request("world")
