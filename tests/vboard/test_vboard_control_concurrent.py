"""Several control clients at once: their requests can reach the board's ring together, and every
one must still be answered (they used to run into one line and both time out)."""

import threading

import pytest

from nest.vboard.control import ControlClient

pytestmark = pytest.mark.board


def test_two_clients_polling_at_once_all_get_answers(vboard):
    answers = {"buzzer": 0, "leds": 0}
    errors = []

    def poll(op):
        client = ControlClient(vboard.control_address, timeout=10.0)
        try:
            for _ in range(150):
                if "ok" in client.request(op):
                    answers[op] += 1
        except Exception as e:  # noqa: BLE001  (reported below, with the op that failed)
            errors.append(f"{op}: {e}")
        finally:
            client.close()

    threads = [threading.Thread(target=poll, args=(op,)) for op in answers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert answers == {"buzzer": 150, "leds": 150}
