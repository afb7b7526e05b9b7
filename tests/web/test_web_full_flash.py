"""`nest web` on a flash folder with no room at start: a clear `nest:` error and the folder as it
was. Before, it ended in an `OSError: [Errno 28] main.py` traceback and left a 0-byte main.py
(mpremote's fs_writefile opens the file before it writes). The room is checked before the folder
is touched (nest.appboard.check_room, the virtual board's own block count), and main.py goes onto
the board under a temporary name renamed once whole, so a write that still fails leaves no stub."""

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

from nest import appboard
from nest.appboard import FLASH_BLOCK, FLASH_BLOCKS, start_app_board
from nest.errors import NestError

pytestmark = [pytest.mark.board, pytest.mark.timeout(300)]
NEST = str(Path(sys.executable).with_name("nest"))


def full_folder(tmp_path, free_blocks):
    """A flash folder (an old main.py and gulo/, a game's data) with `free_blocks` blocks left."""
    folder = tmp_path / "flash"
    (folder / "gulo").mkdir(parents=True)
    (folder / "data").mkdir()
    (folder / "main.py").write_text("print('the main.py that was there')\n")
    (folder / "gulo" / "old.py").write_text("x = 1\n")
    (folder / "data" / "config.json").write_text("{}")
    # used: the root, data/ and its file, the filler; gulo/ and main.py are the firmware's to refresh
    filler = FLASH_BLOCKS - free_blocks - 4
    (folder / "data" / "fill").write_bytes(b"x" * (FLASH_BLOCK * (filler - 1)))
    return folder


def snapshot(folder):
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_nest_web_on_a_full_flash_is_a_clear_error_and_changes_nothing(tmp_path):
    folder = full_folder(tmp_path, 5)
    before = snapshot(folder)
    r = subprocess.run([NEST, "web", "--flash", str(folder), "--port", "0", "--no-open"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode != 0 and "Traceback" not in r.stderr, r.stderr
    assert f"nest: the flash folder {folder} is full" in r.stderr and "nothing changed" in r.stderr, r.stderr
    assert snapshot(folder) == before


def test_a_write_that_fails_on_a_full_flash_leaves_no_stub(tmp_path, monkeypatch):
    # The room check planted away: the board's own ENOSPC is then what stops the start.
    monkeypatch.setattr(appboard, "check_room", lambda folder, firmware: None)
    folder = full_folder(tmp_path, 5)
    with pytest.raises(NestError, match="cannot write main.py on the board: its flash is full"):
        start_app_board(folder, timing="host", baud=0)
    assert (folder / "main.py").read_text() == "print('the main.py that was there')\n"
    assert not [p for p in folder.rglob("*.nest-tmp")]


