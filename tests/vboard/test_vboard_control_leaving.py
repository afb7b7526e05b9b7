"""A control client that leaves abruptly (its unread answers make the kernel reset the connection)
costs only its own connection: no traceback on `nest sim`'s terminal, and the channel serves on."""

import json
import socket
import struct
import time

import pytest

from nest.errors import NestError
from nest.vboard.control import ControlClient, ControlServer


class SlowBoard:
    """Answers `leds` after a moment, as the VM does: answers pile up unread behind the client."""
    hw = {"LEDS": 1}

    def board_request(self, req):
        time.sleep(0.002)
        return {"ok": True, "leds": []}


def test_a_client_leaving_with_unread_answers_prints_no_traceback(capfd):
    server = ControlServer(SlowBoard())
    try:
        # with many answers unread or one, closed at once or after a moment, plainly or with a
        # reset (SO_LINGER 0: as a killed client's socket is)
        for many, wait, reset in [(True, 0, False), (True, 0.3, False), (False, 0, True), (False, 0.3, True)]:
            sock = socket.create_connection(server.address, timeout=5)
            sock.sendall(json.dumps({"token": server.token}).encode() + b"\n")
            sock.sendall(b'{"op": "leds"}\n' * (200 if many else 1))  # answers it never reads
            time.sleep(wait)
            if reset:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            sock.close()
        time.sleep(0.5)
        with pytest.raises(NestError, match="unknown op 'nope'"):  # served: the channel lives on
            ControlClient(server.address).request("nope")
    finally:
        server.close()
    err = capfd.readouterr().err
    assert "Traceback" not in err and "ConnectionResetError" not in err, err
