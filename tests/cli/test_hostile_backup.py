"""`nest flash`'s backup of /data against a board that lists paths out of it: every name the board
gives is confined to the backup folder before anything is written (nest.boardtrust.confined, the
same check `nest logs pull` uses), and a backup's manifest (a file on disk) is checked the same way
when it is restored. The board is testkit.hostile_board.LyingLink: the same read_data + save_backup
calls `nest flash` makes (nest.reflash)."""

import json

import pytest

from nest import boarddata
from nest.errors import NestError
from testkit.hostile_board import ESCAPES, LyingLink

GOOD = {"/data/config.json": b'{"players": 3}', "/data/games/0001.jsonl": b'{"setup": {}}\n'}
HOSTILE = ["/data/../../escaped", "/data/games/../../../escaped", "/data/../escaped", "/etc/escaped",
           "/escaped", "data/escaped", "/data/", "/data//escaped", "/data/./escaped",
           "/data/a\\..\\..\\escaped", "/data/c:escaped", "/data/" + ESCAPES, "/data/..",
           7, None, ["/data/x"]]


def files_under(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


@pytest.mark.parametrize("bad", HOSTILE, ids=repr)
def test_a_listing_naming_a_path_out_of_data_is_refused_before_anything_is_read(tmp_path, bad):
    link = LyingLink(listing=[["/data/config.json", 14], [bad, 5]], files={"/data/config.json": b"x" * 14})
    with pytest.raises(NestError, match="refused, nothing written") as e:
        boarddata.read_data(link)
    assert "\x1b" not in str(e.value)
    assert link.execs == []


@pytest.mark.parametrize("bad", HOSTILE[:-3], ids=repr)
def test_save_backup_writes_nothing_for_a_name_out_of_data(tmp_path, bad):
    root = tmp_path / "backups"
    with pytest.raises(NestError, match="refused, nothing written"):
        boarddata.save_backup({**GOOD, bad: b"owned"}, "/dev/ttyUSB0", root)
    assert files_under(tmp_path) == []


@pytest.mark.parametrize("listing", [{"a": 1}, "x", [["/data/x"]], [["/data/x", -1]], [["/data/x", "5"]],
                                     [["/data/x", True]], [None]], ids=repr)
def test_a_listing_of_another_shape_is_refused(listing):
    with pytest.raises(NestError, match="listing"):
        boarddata.read_data(LyingLink(listing=listing))


def test_the_names_the_firmware_makes_are_backed_up_and_loaded_back(tmp_path):
    files = boarddata.read_data(LyingLink(files=GOOD))
    assert files == GOOD
    folder = boarddata.save_backup(files, "/dev/ttyUSB0", tmp_path)
    assert files_under(folder) == ["data/config.json", "data/games/0001.jsonl", "manifest.json"]
    assert boarddata.load_backup(folder) == GOOD


def test_a_link_planted_in_the_backup_folder_is_not_followed(tmp_path):
    folder = boarddata.save_backup(GOOD, "/dev/ttyUSB0", tmp_path / "backups")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "0001.jsonl").write_bytes(GOOD["/data/games/0001.jsonl"])
    games = folder / "data" / "games"
    (games / "0001.jsonl").unlink()
    games.rmdir()
    games.symlink_to(outside)
    with pytest.raises(NestError, match="leads out of"):
        boarddata.load_backup(folder)


@pytest.mark.parametrize("bad", ["/data/../../escaped", "/boot.py", "/data/../boot.py"])
def test_a_manifest_naming_a_path_out_of_data_is_refused(tmp_path, bad):
    folder = boarddata.save_backup(GOOD, "/dev/ttyUSB0", tmp_path / "backups")
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest[bad] = "0" * 64
    (folder / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(NestError, match="refused"):
        boarddata.load_backup(folder)


@pytest.mark.parametrize("bad", ["/data/../boot.py", "/data/../../main.py", "/boot.py"])
def test_restore_writes_nothing_on_the_board_for_a_name_out_of_data(bad):
    link = LyingLink()
    with pytest.raises(NestError, match="refused"):
        boarddata.restore_data(link, {**GOOD, bad: b"x"})
    assert link.execs == []
