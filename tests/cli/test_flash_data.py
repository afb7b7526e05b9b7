"""`nest flash` keeps the nest's /data: backed up over the raw REPL before esptool runs, compared
after, put back where the flash lost it, and only `--erase-all` starts clean. The board is the
virtual board (its files, its raw REPL, its reset); esptool is the recorder at its API boundary,
doing to the board's files what a flash would (nothing, or losing the file system)."""

import random

import pytest
from test_ports_flash import RecordingEsptool, image

from nest import boarddata
from nest.boardlink import BoardLink
from nest.errors import NestError
from nest.reflash import reflash

pytestmark = pytest.mark.board

DATA = {
    "/data/calibration.json": b'{"counts_per_g": 421.7, "tare": -81234}',
    "/data/settings.json": b'{"volume": 3, "players": 4}',
    # a game log longer than one transfer chunk, and bytes that are not text
    "/data/logs/game-0007.jsonl": random.Random(7).randbytes(boarddata.CHUNK * 2 + 123),
    "/data/empty": b"",
}


def put(board, files):
    with BoardLink.open(board.port) as link:
        link.enter_raw()
        boarddata.restore_data(link, files)


def board_data(board):
    with BoardLink.open(board.port) as link:
        link.enter_raw()
        return boarddata.read_data(link)


def lose_the_file_system(board):
    """What erasing does to the files (and a new partition table would): all gone."""
    with BoardLink.open(board.port) as link:
        link.enter_raw()
        link.exec("import os\n"
                  "def _rm(p):\n"
                  "    for e in os.ilistdir(p):\n"
                  "        q = p + '/' + e[0]\n"
                  "        if e[1] & 0x4000:\n            _rm(q)\n            os.rmdir(q)\n"
                  "        else:\n            os.remove(q)\n"
                  "_rm('/')\n")


@pytest.fixture
def firmware(tmp_path):
    path = tmp_path / "ESP32_GENERIC.bin"
    path.write_bytes(image())
    return path


def flash(board, firmware, tmp_path, on, **kw):
    said = []
    rec = RecordingEsptool(on={"reset_chip": board.control.reset, **on})
    reflash(board.port, firmware, cmds=rec, say=said.append, backup_root=tmp_path / "backups", **kw)
    return rec, said


def test_data_the_flash_leaves_alone_is_checked_in_place(vboard, firmware, tmp_path):
    put(vboard, DATA)
    rec, said = flash(vboard, firmware, tmp_path, on={})
    size = sum(map(len, DATA.values()))
    assert said[0].startswith(f"backed up /data (4 files, {size} bytes) to {tmp_path / 'backups'}")
    assert said[-1] == "/data kept in place (4 files checked)"
    assert "erase_flash" not in [c[0] for c in rec.calls]
    assert board_data(vboard) == DATA


def test_data_the_flash_lost_is_put_back_byte_for_byte(vboard, firmware, tmp_path):
    put(vboard, DATA)
    rec, said = flash(vboard, firmware, tmp_path, on={"write_flash": lambda: lose_the_file_system(vboard)})
    assert said[-1] == "/data put back: 4 of 4 files the flash had lost"
    assert board_data(vboard) == DATA


def test_erase_all_starts_clean_and_keeps_the_backup(vboard, firmware, tmp_path):
    put(vboard, DATA)
    rec, said = flash(vboard, firmware, tmp_path, on={"erase_flash": lambda: lose_the_file_system(vboard)},
                      erase_all=True)
    assert [c[0] for c in rec.calls][:5] == ["detect_chip", "run_stub", "change_baud", "attach_flash",
                                             "erase_flash"]
    assert board_data(vboard) == {}
    folder = said[0].split(" to ")[-1]
    assert said[-1] == f"/data erased (--erase-all): a clean start; the backup stays in {folder}"
    assert boarddata.load_backup(folder) == DATA


def test_a_board_without_data_or_micropython_is_flashed_all_the_same(vboard, firmware, tmp_path):
    rec, said = flash(vboard, firmware, tmp_path, on={})
    assert said[0] == "no /data on the board: nothing to keep" and said[-1].startswith("done")


class Garbling:
    """A link that flips one base64 character of every file write: a corrupted transfer."""

    def __init__(self, link):
        self.link = link

    def exec(self, code, timeout=10.0):
        if "a2b_base64(" in code:
            i = code.index("a2b_base64(b'") + len("a2b_base64(b'") + 4
            code = code[:i] + ("B" if code[i] != "B" else "C") + code[i + 1:]
        return self.link.exec(code, timeout)

    def eval_json(self, code, timeout=10.0):
        return self.link.eval_json(code, timeout)


def test_a_restore_garbled_in_transit_is_refused_and_the_old_file_stays(vboard):
    put(vboard, {"/data/calibration.json": b'{"old": 1}'})
    with BoardLink.open(vboard.port) as link:
        link.enter_raw()
        with pytest.raises(NestError, match="calibration.json did not arrive intact"):
            boarddata.restore_data(Garbling(link), {"/data/calibration.json": b'{"counts_per_g": 421.7}'})
    assert board_data(vboard) == {"/data/calibration.json": b'{"old": 1}'}  # no half file left


def test_a_backup_changed_on_disk_is_refused(tmp_path):
    folder = boarddata.save_backup(DATA, "/dev/ttyUSB0", tmp_path)
    (folder / "data" / "settings.json").write_bytes(b'{"volume": 9}')
    with pytest.raises(NestError, match="settings.json: changed since the backup"):
        boarddata.load_backup(folder)
