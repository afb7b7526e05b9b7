"""`nest logs pull` against a board that answers with names the firmware never makes (issue 17,
hole 6): a path, "..", an absolute name, a non-string or no list at all is refused with a clear
NestError and nothing is written outside --out. The "board" here is a stand-in console object:
the real firmware cannot be made to answer like this (gulo.gamestore only makes NNNN.jsonl)."""

import pytest

from nest.cmd_logs import pull
from nest.errors import NestError


class HostileBoard:
    """Answers `logs` with the given names and `log` with one line per name."""

    def __init__(self, logs_answer):
        self.logs_answer = logs_answer

    def request(self, cmd, timeout=5.0, check=True, **fields):
        if cmd == "logs":
            return {"re": "logs", "ok": True, **self.logs_answer}
        return {"re": "log", "ok": True, "name": fields["name"], "lines": ['{"setup": {}}']}


@pytest.mark.parametrize("name", ["../../escaped.jsonl", "/tmp/abs-escaped.jsonl", "..", "a/0001.jsonl",
                                  "0001.jsonl/..", 7, None, ["0001.jsonl"], "current", "0001.jsonl\n",
                                  "x.jsonl", ""])
def test_a_name_the_firmware_never_makes_is_refused(tmp_path, name):
    out = tmp_path / "a" / "b" / "out"
    with pytest.raises(NestError, match="not a name the firmware makes"):
        pull(HostileBoard({"logs": ["0001.jsonl", name]}), out)
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == []


@pytest.mark.parametrize("answer", [{}, {"logs": "0001.jsonl"}, {"logs": None}])
def test_no_list_of_logs_is_a_clear_error(tmp_path, answer):
    with pytest.raises(NestError, match="no list of logs"):
        pull(HostileBoard(answer), tmp_path / "out")


def test_an_out_that_is_a_file_is_a_clear_error(tmp_path):
    (tmp_path / "f").write_text("")
    with pytest.raises(NestError, match="cannot make the folder"):
        pull(HostileBoard({"logs": []}), tmp_path / "f" / "out")


def test_the_names_the_firmware_makes_are_written(tmp_path):
    out = tmp_path / "out"
    written = pull(HostileBoard({"logs": ["0001.jsonl", "0020.jsonl", "12345.jsonl"]}), out)
    assert sorted(p.name for p in written) == ["0001.jsonl", "0020.jsonl", "12345.jsonl", "current.jsonl"]
    assert all(p.parent == out for p in written)
