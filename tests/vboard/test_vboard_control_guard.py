"""The virtual board's control channel against a web page (issue 17, hole 3): a browser can send
an HTTP request to any loopback port, so a POST whose body holds JSON lines must execute nothing,
and a connection without the run's token gets nothing done. The Python client built from
`board.control_address` keeps working unchanged (it carries the token)."""

import json
import socket

import pytest

from nest.errors import NestError
from nest.vboard.control import ControlClient

pytestmark = pytest.mark.board


def pole_seated(board):
    return board.control.world()["pole_seated"]


def raw_exchange(address, payload):
    """Send `payload` on a fresh connection; every line the channel sends back until it closes."""
    with socket.create_connection(tuple(address), timeout=5) as s:
        s.sendall(payload)
        s.shutdown(socket.SHUT_WR)
        data = b""
        while chunk := s.recv(4096):
            data += chunk
    return [json.loads(line) for line in data.splitlines()]


def test_an_http_post_with_json_lines_is_not_executed(vboard):
    body = b'{"op": "knock_pole"}\n{"op": "power_cut"}\n'
    request = (b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\n"
               b"Content-Length: %d\r\n\r\n" % len(body)) + body
    assert raw_exchange(vboard.control_address, request) == []  # closed unanswered
    assert pole_seated(vboard)
    assert vboard.control.request("ping")["ok"]


@pytest.mark.parametrize("first", [b'{"op": "knock_pole"}\n', b'{"token": "0000"}\n', b'{"token": 1}\n',
                                   b"garbage\n"])
def test_without_the_runs_token_nothing_is_done(vboard, first):
    answers = raw_exchange(vboard.control_address, first + b'{"op": "knock_pole"}\n')
    assert len(answers) == 1 and answers[0]["ok"] is False and "token" in answers[0]["error"]
    assert pole_seated(vboard)


def test_with_the_token_a_raw_client_is_served(vboard):
    token = vboard.control_address.token
    answers = raw_exchange(vboard.control_address,
                           json.dumps({"token": token}).encode() + b'\n{"op": "ping", "id": 3}\n')
    assert answers[0] == {"ok": True} and answers[1]["ok"] and answers[1]["id"] == 3


def test_clients_built_from_the_address_need_no_change(vboard):
    client = ControlClient(vboard.control_address, timeout=5.0)
    try:
        assert client.request("ping")["ok"]
    finally:
        client.close()
    bare = ControlClient(tuple(vboard.control_address))   # the address without its token
    with pytest.raises(NestError, match="refused the control channel's token"):
        bare.request("ping")
    assert pole_seated(vboard)
