"""The runtime folder (`nest sim`'s announcement with its control token, the port holders' notes)
is this user's alone: made 0700, each file 0600 under a random temporary name created afresh, and a
folder another user could write to, or that belongs to another user, or that is a link, refused
with a clear error. Before, /tmp/gulo-nest-<uid> was made 0755 with 0644 files and predictable
temporary names: another local user read the token, or planted `<pid>.tmp` links that a nest run
by root wrote its announcement through."""

import json
import os
import stat

import pytest

from nest import portlock, ports
from nest.errors import NestError


@pytest.fixture
def run_dir(tmp_path, monkeypatch):
    """No XDG_RUNTIME_DIR: the shared temp folder, as on a machine without systemd's."""
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setattr("tempfile.gettempdir", lambda: str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir(mode=0o1777)
    return ports.runtime_dir()


def mode(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_the_folder_and_the_announcement_are_private(run_dir):
    note = ports.announce_virtual_board("/dev/pts/9", control="127.0.0.1:1", control_token="secret")
    assert note.parent == run_dir and mode(run_dir) == 0o700 and mode(note) == 0o600
    assert json.loads(note.read_text())["control_token"] == "secret"
    assert sorted(p.name for p in run_dir.iterdir()) == [note.name]  # no temporary file left
    held = portlock.claim("/dev/ttyUSB0")
    assert mode(held.parent) == 0o700 and mode(held) == 0o600


def test_a_folder_of_this_user_readable_by_others_is_closed(run_dir):
    run_dir.mkdir(mode=0o755)
    os.chmod(run_dir, 0o755)
    ports.announce_virtual_board("/dev/pts/9")
    assert mode(run_dir) == 0o700


@pytest.mark.parametrize("folder_mode", [0o777, 0o775, 0o757, 0o1777])
def test_a_folder_others_can_write_to_is_refused(run_dir, folder_mode):
    run_dir.mkdir()
    os.chmod(run_dir, folder_mode)
    planted = run_dir / "4242.json"
    planted.write_text(json.dumps({"port": "/dev/null", "pid": os.getpid()}))
    for act in (lambda: ports.announce_virtual_board("/dev/pts/9"), ports.virtual_boards,
                lambda: portlock.claim("/dev/ttyUSB0")):
        with pytest.raises(NestError, match=r"writable by other users \(mode [0-7]+\): refusing"):
            act()
    assert sorted(p.name for p in run_dir.iterdir()) == ["4242.json"]


def test_a_folder_of_another_user_is_refused(run_dir, monkeypatch):
    run_dir.mkdir(mode=0o700)
    monkeypatch.setattr(os, "getuid", lambda: os.lstat(run_dir).st_uid + 1)
    with pytest.raises(NestError, match="belongs to another user"):
        ports.announce_virtual_board("/dev/pts/9")
    with pytest.raises(NestError, match="belongs to another user"):
        ports.virtual_boards()


def test_a_folder_that_is_a_link_is_refused(run_dir, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    run_dir.symlink_to(elsewhere)
    with pytest.raises(NestError, match="not a folder"):
        ports.announce_virtual_board("/dev/pts/9")
    assert list(elsewhere.iterdir()) == []


def test_links_planted_at_temporary_names_are_never_written_through(run_dir, tmp_path):
    run_dir.mkdir(mode=0o700)
    target = tmp_path / "victim"
    target.write_text("untouched")
    pid = os.getpid()
    (run_dir / "ports").mkdir(mode=0o700)
    for name in (f"{pid}.tmp", f"{pid}.json.tmp", f"ports/dev_ttyUSB0.json.{pid}.tmp"):
        (run_dir / name).symlink_to(target)
    (run_dir / f"{pid}.json").symlink_to(target)  # even the note's own name
    note = ports.announce_virtual_board("/dev/pts/9", control_token="secret")
    portlock.claim("/dev/ttyUSB0")
    assert target.read_text() == "untouched"
    assert not note.is_symlink() and json.loads(note.read_text())["control_token"] == "secret"


def test_write_private_refuses_an_existing_temporary_name(tmp_path, monkeypatch):
    monkeypatch.setattr(ports.secrets, "token_hex", lambda n: "same")
    ports.write_private(tmp_path / "a.json", "1")
    (tmp_path / ".a.json.same.tmp").symlink_to(tmp_path / "victim")
    with pytest.raises(FileExistsError):
        ports.write_private(tmp_path / "a.json", "2")
    assert not (tmp_path / "victim").exists() and (tmp_path / "a.json").read_text() == "1"
