# Atomic, checksummed files: what a power cut or a damaged flash leaves behind is never trusted.

import os

from gulo.store import save
from gulo.storeread import CorruptFile, load, remove_leftovers

from gamekit import raises
from scratch import scratch_dir


def test_save_and_load():
    d = scratch_dir()
    save(d + "/a", "hello\nworld")
    assert load(d + "/a") == b"hello\nworld"
    save(d + "/a", b"\x00\xffbinary")
    assert load(d + "/a") == b"\x00\xffbinary"
    assert os.listdir(d) == ["a"]  # no temporary file left


def test_missing_file_is_none():
    assert load(scratch_dir() + "/nothing") is None


def test_power_cut_before_the_rename_keeps_the_old_file():
    d = scratch_dir()
    save(d + "/game", "old")
    # The cut came while the new version was being written: a partial .tmp is all there is.
    with open(d + "/game.tmp", "wb") as f:
        f.write(b"gulo1 0000")
    assert load(d + "/game") == b"old"
    assert remove_leftovers(d) == ["game.tmp"]
    assert os.listdir(d) == ["game"]


def corrupt(path, data):
    with open(path, "wb") as f:
        f.write(data)
    try:
        load(path)
    except CorruptFile as e:
        return e.reason
    return None


def test_damaged_files_are_reported():
    d = scratch_dir()
    save(d + "/c", "calibration")
    with open(d + "/c", "rb") as f:
        good = f.read()
    assert corrupt(d + "/c", good[:-3]).startswith("truncated")
    assert corrupt(d + "/c", good[:-1] + b"X") == "checksum mismatch"
    assert corrupt(d + "/c", b"") == "no valid header"
    assert corrupt(d + "/c", b"\xff\xfe garbage\n") == "no valid header"
    assert corrupt(d + "/c", good.replace(b"gulo1", b"gulo9")).startswith("unknown format")
    assert raises(CorruptFile, load, d + "/c")
