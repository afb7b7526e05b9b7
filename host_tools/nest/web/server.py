"""The play page's server: one virtual nest board running the real firmware, shown to any number of
browser tabs on 127.0.0.1.

    NestSession   the board (VirtualBoard + the firmware in a flash folder), its JSON console on the
                  serial port, and the physical world through the control channel
    make_app()    the aiohttp application: the page (static files), /ws (live state both ways) and
                  /log.jsonl (the game log, as the board's `log` console command gives it)

aiohttp serves HTTP and the WebSocket from one small, well-kept library that is already in the
lock file; the stdlib has no WebSocket server. Nothing here decides a rule: the page only shows
what the board says (console events, LED and buzzer read-back) and what the world holds, and its
clicks become button presses and hands in the world. The one thing modelled here is the shaky
hand's mishap (another egg pushed out, or the pole toppled), because the world's shaky hand only
trembles: it is sent to the world as an ordinary `drop`/`knock_pole` at a random instant while the
hand is in the bowl, and the firmware judges it like any other.
"""

import asyncio
import contextlib
import fcntl
import json
import os
import random
import threading
import time
from pathlib import Path

import serial
from aiohttp import WSCloseCode, WSMsgType, web

from gulo import board as pins
from gulo import ledview
from gulo.console import ConsoleError, check_fields
from gulo.rules import Game, RuleError
from gulo.vocab import BUTTON_PIN_NAMES, EGG_COLOURS, MAX_LINE, NOTES
from nest.appboard import start_app_board
from nest.boardconsole import json_line
from nest.errors import NestError
from nest.jsonguard import MAX_DEPTH, nesting_depth
from nest.portlock import open_serial
from nest.vboard import ControlClient
from nest.world import HANDS

HERE = Path(__file__).resolve().parent
STATIC = HERE / "static"
ROOT = HERE.parent.parent.parent
DEFAULT_FLASH = ROOT / "build" / "web-flash"

LED_PERIOD_S = 1 / 15     # LED and buzzer read-back, pushed to the page when they change
WORLD_PERIOD_S = 0.25
STATUS_PERIOD_S = 1.0     # the board's `status`, also asked right after each event it sends
BUTTON_HOLD_S = 0.15      # a finger holds a button well past the firmware's 20 ms debounce...
BUTTON_CONFIRM_S = 3.0    # ...and on until the board answers the press (a busy firmware polls late)
HISTORY = 300             # events kept for a page that connects (or reloads) later
READY_TIMEOUT_S = 30.0
CALL_TIMEOUT_S = 10.0
# A page's largest request is ~70 bytes ({"op": "take", "colour": "R", "hand": "shaky", "chance":
# 0.25}); a bigger message is closed with 1009 (message too big) before it is read whole. Unbounded,
# one 300 KB message would hold the console's write lock for 27 s at 115200 baud.
MAX_MESSAGE = 4096
WRITE_LOCK_S = 2.0        # a console line waits this long for the serial line, then is refused
# A page that does not read its socket: messages queued for it past this are not kept, the page is
# dropped (it reconnects and gets a fresh snapshot). Unbounded, one page that never read grew
# `nest web` from 43 to 246 MB in 30 s. A page gets ~20 messages a second at most (LED_PERIOD_S,
# the console's events), so 500 is 25 s of a page that stalled.
CLIENT_QUEUE = 500
# Connections: a connection must send its request's head within HEADER_TIMEOUT_S of connecting (and
# a kept-alive one its next within as long); at most MAX_CONNECTIONS at once, one more is closed
# at once. Unbounded, 200 half-open connections stayed for 100 s and more.
HEADER_TIMEOUT_S = 10.0
MAX_CONNECTIONS = 32
# The page is served on loopback only; a request must name a loopback host (DNS rebinding sends
# the attacker's name) and, from a browser, come from the page's own origin (a page on another
# site opening /ws sends its own origin).
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
BUTTONS = BUTTON_PIN_NAMES   # as the world and the page name them
EGGS = EGG_COLOURS


# From a take asked for to the nest's verdict, another take is refused (the page says "judging"):
# the board ends an attempt at most AFTER_HAND_MS + lag_ms + MOVING_MAX_MS (gulo.turnflow: 1 s +
# 0.4 s at 10 SPS + 3 s) after the hand left, and the world's hand stays ~1.5 s; past this without
# a verdict, takes go on.
JUDGE_MAX_S = 8.0


class Refused(NestError):
    """A request refused for a reason the page words in its language (`code`, i18n.js refusedCode)."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def shaky_mishap(rng, chance, colour, nest, pole_seated, window_ms):
    """What a shaky hand taking a `colour` egg does besides, or None.

    nest: eggs per colour in the bowl before the take. With probability `chance` the hand either
    pushes another egg out (one of those left, picked at random) or topples the pole, at a random
    instant while it is in the bowl (`in_ms`, within window_ms of the hand coming in)."""
    if rng.random() >= chance:
        return None
    left = [c for c in EGGS for _ in range(nest.get(c, 0) - (c == colour))]
    kinds = (["egg"] if left else []) + (["pole"] if pole_seated else [])
    if not kinds:
        return None
    at = rng.randint(100, max(100, int(window_ms)))
    if rng.choice(kinds) == "pole":
        return {"what": "knock_pole", "in_ms": at}
    return {"what": "drop", "colour": rng.choice(left), "in_ms": at}


def led_layout():
    """Where the path, the deck and the status LED sit on the strip (from the one pin map), and the
    firmware's own tile and Gulo colours, so the page draws what the LEDs show; and the kinds of
    note the firmware sends (gulo.vocab.NOTES), which the page words by kind."""
    return {"count": pins.LED_COUNT, "path_first": pins.LED_PATH_FIRST, "path_count": pins.LED_PATH_COUNT,
            "deck": pins.LED_DECK, "status": pins.LED_STATUS, "cap": pins.LED_BRIGHTNESS_CAP,
            "gulos": ledview.GULOS, "colours": ledview.COLOURS, "notes": NOTES}


# One `nest web` per flash folder: the lock lies beside the folder (FOLDER.nest-web.lock), as its
# world does, not in it, where the board would see it as a file of its flash.
LOCK_SUFFIX = ".nest-web.lock"
CLOSE_S = 1.0             # at stop, each open page's socket is closed within this


def lock_flash(flash_dir, port):
    """Hold the flash folder for this process (flock on its LOCK_SUFFIX file, released when the
    process ends, however it ends) and name the holder in the file; a NestError naming the holder if another
    `nest web` holds it. Two boards on one folder would write the same game log and world."""
    folder = Path(flash_dir)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        whole = folder.resolve()
        fd = os.open(whole.with_name(whole.name + LOCK_SUFFIX), os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as e:
        raise NestError(f"--flash {folder}: cannot use it as the board's flash folder ({e.strerror})",
                        status=2) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        holder = os.read(fd, 200).decode(errors="replace").strip() or "another process"
        os.close(fd)
        raise NestError(f"--flash {folder}: already in use by {holder}; stop it first (Ctrl-C), "
                        "or give another --flash folder") from None
    os.ftruncate(fd, 0)
    os.write(fd, f"nest web (pid {os.getpid()}, port {port})\n".encode())
    return fd


class NestSession:
    """The virtual nest and everything the pages share: board, console, world, history."""

    def __init__(self, flash_dir=DEFAULT_FLASH, baud=115200, seed=1, log_path=None, timing="esp32"):
        self.flash_dir = Path(flash_dir)
        self.timing = timing
        self.baud = baud
        self.rng = random.Random(seed)
        self.seed = seed
        self.log_path = log_path
        self.board = None
        self.port = None
        self.loop = None
        self.clients = set()
        self.sockets = set()           # the pages' open WebSockets, closed at stop
        self.history = []
        self.status = None
        self.leds = None
        self.buzzer = None
        self.world = None
        self._calls = {}
        self._next_id = 0
        self._write_lock = threading.Lock()
        self._stop = threading.Event()
        self._status_due = None
        self._ready = threading.Event()
        self._reactions = 0            # the board's action and note lines so far: a press's answer
        self._take_lock = asyncio.Lock()
        self._hand_until_ms = 0        # world time at which the last take's hand leaves the bowl
        self._verdicts = 0             # the board's action lines so far
        self._judged = (None, 0.0)     # (verdicts at the take asked for, until when), while judged

    # ---- life cycle -----------------------------------------------------------------------------

    def start(self, loop):
        self.loop = loop
        # The board running the app, built as the drills and the tests build it (nest.appboard).
        self.board = start_app_board(self.flash_dir, calibrated=True, baud=self.baud, headless=True,
                                     seed=self.seed, log_path=self.log_path, timing=self.timing,
                                     keep_world=True)  # the bowl as it was left, as the game is
        # The same exclusive lock and holder's note as every other `nest` command (nest.portlock):
        # `nest monitor` or `nest deploy` on this board's port is refused, naming `nest web`.
        self.port = open_serial(self.board.port, 115200, timeout=0.1)
        self.port.write_timeout = CALL_TIMEOUT_S
        threading.Thread(target=self._read_console, daemon=True, name="web-console").start()
        self.board.control.reset()  # EN: the board boots into main.py -> gulo.app.run()
        if not self._ready.wait(READY_TIMEOUT_S):
            raise NestError(f"the firmware did not report ready within {READY_TIMEOUT_S:.0f} s; "
                            f"board log: {self.board.log_path}")
        # A second client for the pollers, so a slow hand never delays the LEDs.
        self.poll_control = ControlClient(self.board.control_address)
        return self

    def stop(self):
        self._stop.set()
        if self.port is not None:
            with contextlib.suppress(OSError, serial.SerialException):
                self.port.write(b"\x03")  # Ctrl-C: the app stops cleanly and saves
            time.sleep(0.3)
        if getattr(self, "poll_control", None):
            self.poll_control.close()
        if self.board is not None:
            self.board.stop()
        if self.port is not None:
            with contextlib.suppress(OSError, serial.SerialException):
                self.port.close()

    # ---- the console ----------------------------------------------------------------------------

    def _read_console(self):
        buf = b""
        while not self._stop.is_set():
            try:
                data = self.port.read(512)
            except (OSError, serial.SerialException, TypeError):
                return
            if not data:
                continue
            buf += data
            *lines, buf = buf.split(b"\n")
            for raw in lines:
                obj, text = json_line(raw)
                if obj is None:
                    if not text:
                        continue
                    obj = {"ev": "serial", "text": text}  # a traceback, the boot lines
                if obj.get("ev") == "ready":
                    self._ready.set()
                if self.loop is not None:
                    self.loop.call_soon_threadsafe(self._on_line, obj)

    def _send(self, obj):
        if not self._write_lock.acquire(timeout=WRITE_LOCK_S):
            raise NestError(f"the console is busy (another line has held it for {WRITE_LOCK_S:.0f} s)")
        try:
            self.port.write((json.dumps(obj) + "\n").encode())
        except serial.SerialTimeoutException:
            raise NestError("the board's serial line did not take the command in time") from None
        finally:
            self._write_lock.release()

    async def call(self, cmd, **fields):
        """A console command and its answer (`{"re": cmd, "ok": ...}`)."""
        self._next_id += 1
        rid = self._next_id
        size = len(json.dumps({"cmd": cmd, "id": rid, **fields}).encode())
        if size > MAX_LINE:  # the board would refuse it unread, with no id to answer to
            raise NestError(f"{cmd}: its console line would be {size} bytes, over the board's {MAX_LINE}")
        fut = self.loop.create_future()
        self._calls[rid] = fut
        try:
            await asyncio.to_thread(self._send, {"cmd": cmd, "id": rid, **fields})
            return await asyncio.wait_for(fut, CALL_TIMEOUT_S)
        except TimeoutError:
            raise NestError(f"the board did not answer {cmd!r} within {CALL_TIMEOUT_S:.0f} s") from None
        finally:
            self._calls.pop(rid, None)

    def _on_line(self, obj):
        fut = self._calls.get(obj.get("id")) if "re" in obj else None
        if fut is not None and not fut.done():
            fut.set_result(obj)
        if obj.get("re") == "status" and obj.get("ok"):
            status = {k: obj.get(k) for k in ("phase", "prompt", "need", "fault", "appeal", "state")}
            if status != self.status:
                self.status = status
                self.broadcast({"type": "status", "status": status})
            return
        if obj.get("re") in ("log", "logs"):
            return  # asked for by the download, not something that happened
        self.remember(obj)
        if obj.get("ev") in ("action", "note"):
            self._reactions += 1
        if obj.get("ev") in ("action", "undo"):
            self._verdicts += 1
        if "ev" in obj:
            self._ask_status_soon()

    def remember(self, event):
        event = dict(event, t=round(time.time() * 1000))
        self.history.append(event)
        del self.history[:-HISTORY]
        self.broadcast({"type": "event", "event": event})

    def _ask_status_soon(self):
        # Several lines come in a burst (action, state, note): one status after the burst.
        if self._status_due is None:
            self._status_due = self.loop.call_later(0.05, self._status_now)

    def _status_now(self):
        self._status_due = None
        self.loop.create_task(self._refresh_status())

    async def _refresh_status(self):
        with contextlib.suppress(NestError):
            await self.call("status")

    async def restore_history(self):
        """The game so far, as the history's action lines, from the board's game log (`log
        current`), each outcome worked out again by the rules: a restart keeps what happened, not
        only its last line. The log crossed a wire: anything that does not replay is left out."""
        with contextlib.suppress(NestError):
            answer = await self.call("log", name="current")
            if not answer.get("ok"):
                return
            events = []
            try:
                lines = [json.loads(x) for x in answer["lines"]]
                setup = lines[0]["setup"]
                game = Game(setup["players"], setup["variant"], setup["path"], setup["deck"])
                for line in lines[1:]:
                    action = {k: line[k] for k in ("do", "colour", "egg", "cause") if k in line}
                    events.append({"ev": "action", "action": action, "outcome": game.apply(action),
                                   "restored": True})
            except (ValueError, KeyError, TypeError, IndexError, RuleError):
                return
            self.history[:0] = [dict(e, t=None) for e in events]
            del self.history[:-HISTORY]

    # ---- pushing to the pages -------------------------------------------------------------------

    def broadcast(self, msg):
        text = json.dumps(msg)
        for client in list(self.clients):
            client.push(text)

    def snapshot(self):
        return {"type": "hello", "layout": led_layout(), "status": self.status, "leds": self.leds,
                "buzzer": self.buzzer, "world": self.world, "events": self.history, "hands": list(HANDS)}

    async def poll_leds(self):
        while True:
            try:
                leds, buzzer = await asyncio.to_thread(self._read_leds)
            except NestError:
                await asyncio.sleep(0.5)
                continue
            if leds != self.leds or buzzer != self.buzzer:
                self.leds, self.buzzer = leds, buzzer
                self.broadcast({"type": "leds", "leds": leds, "buzzer": buzzer})
            await asyncio.sleep(LED_PERIOD_S)

    def _read_leds(self):
        c = self.poll_control
        return [list(x) for x in c.leds()], c.buzzer()

    async def poll_world(self):
        while True:
            with contextlib.suppress(NestError):
                await self.refresh_world()
            await asyncio.sleep(WORLD_PERIOD_S)

    async def refresh_world(self):
        w = await asyncio.to_thread(self.poll_control.world)
        world = {"nest": w["nest"], "pole_seated": w["pole_seated"]}
        if world != self.world:
            self.world = world
            self.broadcast({"type": "world", "world": world})

    async def poll_status(self):
        while True:
            await self._refresh_status()
            await asyncio.sleep(STATUS_PERIOD_S)

    # ---- what a page asks for -------------------------------------------------------------------

    async def do(self, msg):
        """Carry out one request from a page; returns a dict for that page only."""
        op = msg.get("op")
        control = self.board.control
        if op == "button":
            name = str(msg.get("button", "")).upper()
            if name not in BUTTONS:
                raise NestError(f"button: {name!r} is not one of {', '.join(BUTTONS)}")
            await self._press(control, name)
        elif op == "take":
            hand_ms = await self._take(msg)
            with contextlib.suppress(NestError):
                await self.refresh_world()
            return {"type": "done", "op": op, "ok": True, "hand_ms": hand_ms}
        elif op == "pour_back" and msg.get("eggs") is not None:
            eggs = msg["eggs"]
            if not isinstance(eggs, dict) or not all(
                    c in EGGS and isinstance(n, int) and not isinstance(n, bool) and 0 < n <= 5
                    for c, n in eggs.items()):
                raise NestError("pour_back: eggs must be {colour: count} with colours from GYRBP")
            answer = await asyncio.to_thread(control.request, op, eggs=eggs)
            if not answer.get("ok"):
                raise NestError(answer.get("error", "pour_back: refused"))
            self.remember({"world": op, "eggs": eggs})
        elif op in ("knock_pole", "seat_pole", "pour_back"):
            await asyncio.to_thread(control.request, op)
            self.remember({"world": op})
        elif op in ("undo", "call"):
            # The players overrule the nest (docs/rules.md, "The players have the last word").
            answer = await self.call(op)
            if not answer.get("ok"):
                raise NestError(answer.get("error", f"{op}: refused"))
        elif op == "new":
            fields = {k: msg[k] for k in ("players", "variant", "seed") if msg.get(k) is not None}
            try:  # the console's own checks: a 3,000-digit seed is refused here, not by the board
                check_fields(fields, {"players": "players", "variant": "variant", "seed": "int"})
            except ConsoleError as e:
                raise NestError(f"new: {e}") from None
            answer = await self.call("new", **fields)
            if not answer.get("ok"):
                raise NestError(answer.get("error", "new: refused"))
        else:
            raise NestError(f"unknown request {op!r}")
        with contextlib.suppress(NestError):
            await self.refresh_world()
        return {"type": "done", "op": op, "ok": True}

    async def _press(self, control, name):
        """Hold the button until the board answers the press (an action or a note), as a finger
        holds on while nothing happens; a press that gets no answer is reported, never lost
        silently, and the button is always released."""
        seen = self._reactions
        await asyncio.to_thread(control.press, name)
        try:
            await asyncio.sleep(BUTTON_HOLD_S)
            end = time.monotonic() + BUTTON_CONFIRM_S
            while self._reactions == seen and time.monotonic() < end:
                await asyncio.sleep(0.02)
        finally:
            await asyncio.to_thread(control.release, name)
        if self._reactions == seen:
            raise Refused("no_answer", f"the nest did not answer the {name} button: press it again")

    async def _take(self, msg):
        colour = str(msg.get("colour", ""))
        hand = msg.get("hand", "steady")
        chance = msg.get("chance", 0)
        if colour not in EGGS or len(colour) != 1:
            raise NestError(f"take: colour must be one of {', '.join(EGGS)}")
        if hand not in HANDS:
            raise NestError(f"take: hand must be one of {', '.join(HANDS)}")
        if isinstance(chance, bool) or not isinstance(chance, (int, float)) or not 0 <= chance <= 1:
            raise NestError("take: chance must be a number from 0 to 1")
        control = self.board.control
        # One hand in the bowl at a time: a double click, or two tabs clicking at once, is one take.
        async with self._take_lock:
            world = await asyncio.to_thread(control.world)
            if world["t_ms"] < self._hand_until_ms:
                raise Refused("hand", "take: a hand is still in the bowl")
            mark, until = self._judged
            if mark == self._verdicts and time.monotonic() < until:
                raise Refused("judging", "take: the nest is judging the last egg")
            if self.status and self.status.get("phase") == "attempt" and not self.status.get("prompt"):
                self._judged = (self._verdicts, time.monotonic() + JUDGE_MAX_S)
            answer = await asyncio.to_thread(control.take, colour, hand)
            if not answer.get("ok"):
                raise NestError(answer.get("error", "take: refused"))
            self._hand_until_ms = answer["until_ms"]
        event = {"world": "take", "colour": colour, "hand": hand}
        mishap = None
        if hand == "shaky":
            mishap = shaky_mishap(self.rng, chance, colour, world["nest"], world["pole_seated"],
                                  answer["until_ms"] - answer["t_ms"])
        if mishap:
            if mishap["what"] == "drop":
                await asyncio.to_thread(control.drop, mishap["colour"], mishap["in_ms"])
            else:
                await asyncio.to_thread(control.knock_pole, mishap["in_ms"])
            event["mishap"] = mishap
        self.remember(event)
        return answer["until_ms"] - answer["t_ms"]


def allowed(host, origin, port):
    """None if a request naming `host` (its Host header) from `origin` (its Origin header, None
    from a non-browser client) may reach the page on loopback `port`, else why not."""
    name, _, host_port = (host or "").rpartition(":")
    if name not in LOOPBACK_NAMES or host_port != str(port):
        return f"Host {host!r} is not this page's loopback address (127.0.0.1:{port})"
    if origin is not None and origin != f"http://{host}":
        return f"Origin {origin!r} is not this page's own (http://{host})"
    return None


def parse_request(text):
    """A page's request (a JSON object) from a WebSocket message; ValueError saying why not."""
    if nesting_depth(text) > MAX_DEPTH:
        raise ValueError(f"a request nested deeper than {MAX_DEPTH} levels")
    try:
        req = json.loads(text)
    except ValueError:
        raise ValueError("not JSON: a request is one JSON object, e.g. {\"op\": \"button\", "
                         "\"button\": \"REVEAL\"}") from None
    if not isinstance(req, dict):
        raise ValueError("a request is a JSON object")
    return req


class Client:
    """One page's socket and the messages queued for it (at most CLIENT_QUEUE: a page that does
    not read is dropped, its queue freed, rather than kept growing)."""

    def __init__(self, ws, transport):
        self.ws = ws
        self.transport = transport
        self.queue = asyncio.Queue(CLIENT_QUEUE)
        self.task = None
        self.dropped = False

    def push(self, text):
        if self.dropped:
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            self.drop()

    def drop(self):
        """Stop sending, forget what was queued and cut the connection (abort: a close frame would
        wait on the very socket buffer that is full)."""
        self.dropped = True
        if self.task is not None:
            self.task.cancel()
        self.queue = asyncio.Queue(1)
        if self.transport is not None:
            self.transport.abort()


class _Refused(asyncio.Protocol):
    """A connection past MAX_CONNECTIONS: cut as it is made, before aiohttp sees it."""

    def connection_made(self, transport):
        transport.abort()


def make_app(session):
    @web.middleware
    async def same_origin_only(request, handler):
        sock = request.transport.get_extra_info("sockname") if request.transport else None
        why = allowed(request.host, request.headers.get("Origin"), sock[1] if sock else None)
        if why:
            raise web.HTTPForbidden(text=f"refused: {why}\n")
        return await handler(request)

    app = web.Application(middlewares=[same_origin_only], client_max_size=MAX_MESSAGE)

    async def index(request):
        return web.FileResponse(STATIC / "index.html")

    async def log(request):
        answer = await session.call("log", name="current")
        if not answer.get("ok"):
            raise web.HTTPNotFound(text=answer.get("error", "no game log yet"))
        text = "\n".join(answer["lines"]) + "\n"
        return web.Response(text=text, content_type="application/x-ndjson",
                            headers={"Content-Disposition": 'attachment; filename="gulo-game.jsonl"'})

    async def ws_handler(request):
        ws = web.WebSocketResponse(heartbeat=20, max_msg_size=MAX_MESSAGE)
        await ws.prepare(request)
        client = Client(ws, request.transport)
        session.clients.add(client)
        session.sockets.add(ws)

        async def sender():
            await ws.send_str(json.dumps(session.snapshot()))
            while True:
                await ws.send_str(await client.queue.get())

        client.task = asyncio.create_task(sender())
        try:
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    continue
                req = None
                try:
                    req = parse_request(msg.data)
                    reply = await session.do(req)
                except (ValueError, NestError) as e:
                    reply = {"type": "done", "op": None, "ok": False, "error": str(e),
                             "code": getattr(e, "code", None)}
                    if isinstance(req, dict) and isinstance(req.get("op"), str):
                        reply["op"] = req["op"]
                if isinstance(req, dict) and isinstance(req.get("id"), (int, str)) \
                        and not isinstance(req["id"], bool):
                    reply["id"] = req["id"]  # a page that numbers its requests matches each answer
                client.push(json.dumps(reply))
        finally:
            session.clients.discard(client)
            session.sockets.discard(ws)
            client.drop()
        return ws

    app.router.add_get("/", index)
    app.router.add_get("/log.jsonl", log)
    app.router.add_get("/ws", ws_handler)
    app.router.add_static("/static/", STATIC)
    return app


async def serve(session, port=8765, on_ready=None, stop=None):
    """Start the board, serve the page on 127.0.0.1:port until `stop` (an asyncio.Event) is set."""
    loop = asyncio.get_running_loop()
    await asyncio.to_thread(session.start, loop)
    await session.restore_history()
    tasks = [asyncio.create_task(f()) for f in (session.poll_leds, session.poll_world, session.poll_status)]
    stop_serving = None
    try:
        stop_serving, url = await listen(make_app(session), port)
        if on_ready:
            on_ready(url)
        await (stop or asyncio.Event()).wait()
    finally:
        for t in tasks:
            t.cancel()
        # An open page would hold the runner's cleanup until its socket closes (aiohttp's shutdown
        # timeout, 60 s): every socket is closed first, each page reconnects to the next start.
        for ws in list(session.sockets):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(code=WSCloseCode.GOING_AWAY), CLOSE_S)
        if stop_serving is not None:
            await stop_serving()
        await asyncio.to_thread(session.stop)


async def listen(app, port):
    """The app served on 127.0.0.1:port (loopback only: the page drives the board), bounded: a
    connection must send its request's head within HEADER_TIMEOUT_S, and past MAX_CONNECTIONS one
    is cut as it comes. (An async function that stops it, its URL.)"""
    # keepalive_timeout: aiohttp arms it when a connection is made and closes a connection still
    # idle when it fires (web_protocol.RequestHandler.connection_made): the header timeout.
    runner = web.AppRunner(app, access_log=None, keepalive_timeout=HEADER_TIMEOUT_S)
    await runner.setup()
    handlers = runner.server
    # Handlers made but not yet connected: asyncio accepts a burst of connections, making each one's
    # protocol at once and connecting them later (call_soon), so the server's count lags behind.
    fresh = []

    def protocol():
        now = time.monotonic()
        fresh[:] = [(t, h) for t, h in fresh if h.transport is None and now - t < 1.0]
        if len(handlers.connections) + len(fresh) >= MAX_CONNECTIONS:
            return _Refused()
        handler = handlers()
        fresh.append((now, handler))
        return handler

    try:
        tcp = await asyncio.get_running_loop().create_server(protocol, "127.0.0.1", port)
    except OSError as e:
        await runner.cleanup()
        raise NestError(f"--port {port}: cannot listen on 127.0.0.1 ({e.strerror}); "
                        "pick another port, or 0 for any free one") from None

    async def stop():
        tcp.close()
        await runner.cleanup()

    return stop, f"http://127.0.0.1:{tcp.sockets[0].getsockname()[1]}/"
