"""Every server bounded (the play page's, the virtual board's control channel): a page that never
reads is dropped with its queue freed (before, one grew `nest web` from 43 to 246 MB in 30 s), a
connection that sends no request head (no token line) in time is closed, past a cap a connection
is closed as it comes (before, 200 half-open or idle ones stayed for 100 s and more), and a `new`
the board would refuse unread (a console line past 512 bytes, no id to answer to: the page waited
10 s) is refused at once, with the id the page gave its request. In-process servers on loopback,
no board: the bounds are the subject, the timeouts shortened for the test."""

import asyncio
import json
import socket
import time

import aiohttp
import pytest

from nest.errors import NestError
from nest.vboard import control
from nest.web import server
from nest.web.server import CLIENT_QUEUE, Client, NestSession


class FakeTransport:
    def __init__(self):
        self.aborted = False

    def abort(self):
        self.aborted = True


def closed_within(sock, seconds):
    """True if the peer closes `sock` within `seconds` (recv gives b"" or a reset)."""
    sock.settimeout(seconds)
    try:
        return sock.recv(1024) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def test_a_page_that_never_reads_is_dropped_and_its_queue_freed():
    async def main():
        session = NestSession()
        client = Client(ws=None, transport=FakeTransport())
        session.clients.add(client)
        for i in range(CLIENT_QUEUE):
            session.broadcast({"type": "leds", "n": i})
        assert not client.dropped and client.queue.qsize() == CLIENT_QUEUE
        session.broadcast({"type": "leds", "n": "one too many"})
        assert client.dropped and client.transport.aborted and client.queue.qsize() == 0
        for i in range(10 * CLIENT_QUEUE):
            session.broadcast({"type": "leds", "n": i})
        assert client.queue.qsize() == 0   # nothing is kept for a dropped page

    asyncio.run(main())


class Refusing:
    """A NestSession's `do` and `snapshot` for the page's socket, with the real checks of `new`."""

    clients = set()
    sockets = set()

    def snapshot(self):
        return {"type": "hello"}

    async def do(self, msg):
        return await NestSession.do(self.real, msg)

    def __init__(self):
        self.real = NestSession()
        self.real.board = type("B", (), {"control": None})()


def test_a_new_with_a_seed_too_long_is_refused_at_once_with_the_request_id():
    async def main():
        stop, url = await server.listen(server.make_app(Refusing()), 0)
        try:
            async with aiohttp.ClientSession() as s, s.ws_connect(url + "ws") as ws:
                assert json.loads((await ws.receive(timeout=10)).data)["type"] == "hello"
                start = time.monotonic()
                await ws.send_str(json.dumps({"op": "new", "seed": int("9" * 3000), "id": "n1"}))
                reply = json.loads((await ws.receive(timeout=10)).data)
                return reply, time.monotonic() - start
        finally:
            await stop()

    reply, _took = asyncio.run(main())
    assert reply["ok"] is False and reply["op"] == "new" and reply["id"] == "n1", reply
    assert "field seed must be" in reply["error"], reply


def test_a_console_line_past_the_board_limit_is_refused_before_it_is_sent():
    session = NestSession()
    with pytest.raises(NestError, match="over the board's 512"):
        asyncio.run(session.call("new", variant="x" * 600))


def test_the_page_server_closes_a_connection_without_a_request_head_and_caps_connections(monkeypatch):
    monkeypatch.setattr(server, "HEADER_TIMEOUT_S", 0.5)
    monkeypatch.setattr(server, "MAX_CONNECTIONS", 4)

    async def main():
        stop, url = await server.listen(server.make_app(Refusing()), 0)
        port = int(url.rsplit(":", 1)[1].strip("/"))
        try:
            silent = await asyncio.to_thread(socket.create_connection, ("127.0.0.1", port))
            half = await asyncio.to_thread(socket.create_connection, ("127.0.0.1", port))
            half.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1")
            closed = [await asyncio.to_thread(closed_within, s, 20) for s in (silent, half)]
            idle = [await asyncio.to_thread(socket.create_connection, ("127.0.0.1", port)) for _ in range(4)]
            over = await asyncio.to_thread(socket.create_connection, ("127.0.0.1", port))
            over_closed = await asyncio.to_thread(closed_within, over, 0.4)
            for s in [silent, half, over, *idle]:
                s.close()
            return closed, over_closed
        finally:
            await stop()

    closed, over_closed = asyncio.run(main())
    assert closed == [True, True] and over_closed


def _wait_active(srv, n, timeout=10.0):
    """Until the control server holds `n` connections (its accept loop polls every 50 ms)."""
    end = time.monotonic() + timeout
    while srv._server.active != n:
        assert time.monotonic() < end, f"{srv._server.active} connections held, not {n}"
        time.sleep(0.01)


def test_the_control_channel_closes_a_connection_without_a_token_line_and_caps_connections(monkeypatch):
    monkeypatch.setattr(control, "FIRST_LINE_S", 3.0)
    monkeypatch.setattr(control, "MAX_CONNECTIONS", 3)
    srv = control.ControlServer(board=None)
    try:
        silent = socket.create_connection(srv.address)
        assert closed_within(silent, 20)
        _wait_active(srv, 0)   # its thread has let go of its slot
        idle = [socket.create_connection(srv.address) for _ in range(3)]
        _wait_active(srv, 3)   # all accepted (a fixed sleep was too short on a loaded host)
        over = socket.create_connection(srv.address)
        assert closed_within(over, 1.5)   # at once, not by the first-line timeout
        for s in idle:
            assert closed_within(s, 20)   # each closed in its turn by the first-line timeout
        token = socket.create_connection(srv.address)  # the slots are free again
        token.sendall(json.dumps({"token": srv.token}).encode() + b"\n")
        token.settimeout(10)
        assert json.loads(token.makefile("rb").readline()) == {"ok": True}
        for s in [silent, over, token, *idle]:
            s.close()
    finally:
        srv.close()
