# Files on flash: atomic, checksummed whole files, and logs of sealed lines. What a power cut or a
# damaged flash leaves behind is never trusted.

import json
import os

from gulo import store
from gulo.store import CorruptFile, append, load, load_lines, remove_leftovers, save, seal, unseal

from gamekit import caught, raises
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
    assert load_lines(scratch_dir() + "/nothing") == (None, None)


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


# ---- sealed lines ----------------------------------------------------------------------------------

LINES = ['{"setup": {"players": 2}}', '{"do": "reveal", "t": 5}', '{"do": "take", "egg": "G"}']


def sealed_log(lines=LINES):
    path = scratch_dir() + "/game.log"
    for t in lines:
        append(path, seal(t))
    return path


def test_a_sealed_line_is_plain_json_with_its_checksum():
    line = seal('{"do": "take", "egg": "G"}')
    obj = json.loads(line)  # every reader of the log contract reads it (unknown keys ignored)
    assert obj["do"] == "take" and obj["egg"] == "G" and len(obj["crc"]) == 8
    assert unseal(line) == '{"do": "take", "egg": "G"}'


def test_any_changed_byte_breaks_the_seal():
    line = seal('{"do": "take", "egg": "G"}')
    for i in range(len(line)):
        changed = line[:i] + ("X" if line[i] != "X" else "Y") + line[i + 1:]
        assert unseal(changed) is None, changed
    assert unseal(line[:-1]) is None and unseal('{"do": "reveal"}') is None and unseal("") is None


def test_lines_appended_read_back_unsealed():
    path = sealed_log()
    assert load_lines(path) == (LINES, None)


def tail(path, cut):
    """The file at `path` without its last `cut` bytes: a write a power cut stopped."""
    with open(path, "rb") as f:
        data = f.read()
    with open(path, "wb") as f:
        f.write(data[:-cut])


def drops_a_torn_last_line(reader):
    """The check of the torn-line claim, for any reader: every cut inside the last line's write
    gives back the lines before it and says what it dropped."""
    for cut in (1, 2, 10, len(seal(LINES[-1]))):
        path = sealed_log()
        tail(path, cut)
        lines, dropped = reader(path)
        if lines != LINES[:-1] or not dropped:
            return False
    return True


def test_a_torn_last_line_is_dropped_and_said():
    assert drops_a_torn_last_line(load_lines)
    path = sealed_log()
    tail(path, 3)
    assert load_lines(path)[1].startswith("torn last line")


def trusting_reader(path):
    """Planted fault: a reader that trusts every line (checks no seal, keeps a torn end)."""
    with open(path, "rb") as f:
        pieces = f.read().decode().split("\n")
    return [t for t in pieces if t], None


def test_planted_fault_a_reader_that_trusts_a_torn_line_fails_the_check():
    assert not drops_a_torn_last_line(trusting_reader)


def test_a_damaged_last_line_is_dropped():
    path = sealed_log()
    with open(path, "r+b") as f:
        f.seek(-8, 2)
        f.write(b"0")  # a digit of the last line's seal
    lines, dropped = load_lines(path)
    assert lines == LINES[:-1] and dropped.startswith("damaged last line 3")


def test_damage_before_the_last_line_is_a_damaged_file():
    path = sealed_log()
    with open(path, "r+b") as f:
        f.seek(len(seal(LINES[0])) + 5)  # inside line 2
        f.write(b"#")
    e = caught(CorruptFile, load_lines, path)
    assert e.path == path and e.reason.startswith("line 2 damaged")
    # a damaged last whole line AND a torn end: two lines wrong, the file is damaged
    path = sealed_log()
    with open(path, "r+b") as f:
        f.seek(-8, 2)
        f.write(b"0")
    with open(path, "ab") as f:
        f.write(b'{"do": "rev')
    assert caught(CorruptFile, load_lines, path).reason.startswith("line 3 damaged")


def test_a_log_written_whole_by_the_earlier_firmware_is_read_as_it_was():
    path = scratch_dir() + "/game.log"
    save(path, "\n".join(LINES) + "\n")
    assert load_lines(path) == (LINES, None)
    with open(path, "ab") as f:
        f.write(b"x")
    assert caught(CorruptFile, load_lines, path).reason.startswith("truncated")


def test_replace_is_whole_or_nothing():
    d = scratch_dir()
    store.replace(d + "/f", "a\n", b"b\n")
    with open(d + "/f", "rb") as f:
        assert f.read() == b"a\nb\n"
    assert os.listdir(d) == ["f"]
