"""`nest deploy` against the virtual board: sync (send/keep/delete), dry run, the real app booting
after a deploy, deploys cut mid-transfer and mid-commit, and the unhappy paths of the link."""

import hashlib
import os
import random
import subprocess
import sys
import tty
from pathlib import Path

import pytest
import serial

from nest import deploy as deploy_mod
from nest.boardlink import BoardLink
from nest.deploy import deploy
from nest.errors import NestError
from testkit.vboard_fixtures import Console

pytestmark = pytest.mark.board
NEST = str(Path(sys.executable).with_name("nest"))


def write_firmware(folder, a=1, b=1, big_seed=1, extra=True):
    """A tiny firmware whose main.py says which versions of its modules it booted with, then
    `ready` as the nest app does (what the deploy waits for after its reset)."""
    pkg = folder / "pkg"
    pkg.mkdir(parents=True, exist_ok=True)
    (folder / "main.py").write_text(
        "import json\nimport pkg.a, pkg.b, pkg.big\n"
        "print(json.dumps({'ev': 'version', 'a': pkg.a.V, 'b': pkg.b.V, 'big': pkg.big.V}))\n"
        "print(json.dumps({'ev': 'ready'}))\n")
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text(f"V = {a}\n")
    (pkg / "b.py").write_text(f"V = {b}\n")
    # ~20 KB of .mpy, so a transfer takes several chunks and can be cut in the middle.
    blob = random.Random(big_seed).randbytes(20000).hex()
    (pkg / "big.py").write_text(f"V = {big_seed}\nDATA = {blob!r}\n")
    if extra:
        (pkg / "extra.py").write_text("X = 1\n")
    elif (pkg / "extra.py").exists():
        (pkg / "extra.py").unlink()
    tests = folder / "tests"
    tests.mkdir(exist_ok=True)
    (tests / "test_never_deployed.py").write_text("def test_x():\n    pass\n")
    return folder


def boot_version(board):
    """Reset the board and return what its main.py printed."""
    with serial.Serial(board.port, 115200, timeout=0.1) as port:
        board.control.reset()
        return Console(port).wait(lambda ev: ev.get("ev") == "version", timeout=15)[-1]


def board_listing(board, code):
    with BoardLink.open(board.port) as link:
        link.enter_raw()
        return link.eval_json(code)


def test_first_deploy_then_no_change_then_one_change_then_a_removal(vboard, tmp_path):
    fw = write_firmware(tmp_path / "fw")
    with BoardLink.open(vboard.port) as link:
        link.enter_raw()
        link.exec("import os\nos.mkdir('/data')\nopen('/data/keep.json','w').write('{}')")

    first = deploy(vboard.port, fw, reset=False)
    assert first.send == ["main.py", "pkg/__init__.mpy", "pkg/a.mpy", "pkg/b.mpy",
                          "pkg/big.mpy", "pkg/extra.mpy"]
    assert first.delete == [] and first.keep == [] and first.bytes_sent > 20000
    assert boot_version(vboard) == {"ev": "version", "a": 1, "b": 1, "big": 1}

    again = deploy(vboard.port, fw)
    assert again.send == [] and again.delete == [] and again.bytes_sent == 0 and len(again.keep) == 6
    assert again.started == "ready (new game)"

    write_firmware(fw, a=2)
    seen = []
    one = deploy(vboard.port, fw, progress=lambda done, total: seen.append((done, total)))
    assert one.send == ["pkg/a.mpy"] and one.bytes_sent == seen[-1][0] == seen[-1][1]

    write_firmware(fw, a=2, extra=False)
    dry = deploy(vboard.port, fw, dry_run=True)
    assert dry.delete == ["pkg/extra.mpy"] and dry.send == []
    files = board_listing(vboard, "import os, json\nprint(json.dumps(os.listdir('/pkg')))")
    assert "extra.mpy" in files  # the dry run touched nothing

    gone = deploy(vboard.port, fw)
    assert gone.delete == ["pkg/extra.mpy"]
    state = board_listing(vboard, "import os, json\nprint(json.dumps([sorted(os.listdir('/pkg')), "
                                  "os.listdir('/data'), sorted(os.listdir('/'))]))")
    assert state[0] == ["__init__.mpy", "a.mpy", "b.mpy", "big.mpy"]
    assert state[1] == ["keep.json"]  # /data is never the deploy's business
    assert "tests" not in state[2]
    assert boot_version(vboard) == {"ev": "version", "a": 2, "b": 1, "big": 1}


def test_a_dry_run_on_a_fresh_board_plans_everything_and_writes_nothing(vboard, tmp_path):
    fw = write_firmware(tmp_path / "fw")
    r = subprocess.run([NEST, "deploy", "--port", vboard.port, "--src", str(fw), "--dry-run"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "send   pkg/big.mpy" in r.stdout and "would send 6 files" in r.stdout
    assert board_listing(vboard, "import os, json\nprint(json.dumps(os.listdir('/')))") == []


def test_the_nest_app_boots_after_a_deploy_and_a_second_deploy_stops_it(vboard):
    with BoardLink.open(vboard.port) as link:   # kept open: the ready line is read on it
        report = deploy(vboard.port, link=link)
        assert "gulo/app.mpy" in report.send and report.reset
        assert report.started == "ready (new game)"  # the deploy waited for the app's ready line
    # The game runs now: a deploy must get into the raw REPL anyway, and change nothing.
    again = deploy(vboard.port, reset=False)
    assert again.send == [] and again.delete == []


class Cut(Exception):
    pass


def test_a_deploy_cut_mid_transfer_keeps_the_old_firmware_then_the_next_completes(vboard_factory, tmp_path):
    board = vboard_factory(flash_dir=tmp_path / "flash")
    fw = write_firmware(tmp_path / "fw")
    deploy(board.port, fw)
    write_firmware(fw, a=2, b=2, big_seed=2)

    # 1. The host side dies half way through the transfer (the port is closed under the deploy).
    def close_port(done, total):
        if 0 < done < total:
            link.serial.close()
    link = BoardLink.open(board.port)
    with pytest.raises(NestError, match="lost the connection|stopped answering"):
        deploy(board.port, fw, progress=close_port, link=link)
    link.close()
    assert boot_version(board) == {"ev": "version", "a": 1, "b": 1, "big": 1}

    # 2. The power dies half way through the transfer.
    def power_cut(done, total):
        if 0 < done < total:
            board.control.power_cut(off_ms=100)
            raise Cut()
    with pytest.raises(Cut):
        deploy(board.port, fw, progress=power_cut)
    assert boot_version(board) == {"ev": "version", "a": 1, "b": 1, "big": 1}

    # 3. The next deploy completes.
    done = deploy(board.port, fw)
    assert set(done.send) == {"pkg/a.mpy", "pkg/b.mpy", "pkg/big.mpy"}
    assert boot_version(board) == {"ev": "version", "a": 2, "b": 2, "big": 2}


def deploy_cut_at_its_journal(board, fw):
    """A deploy of `fw` whose power is cut once its journal is on the board."""
    def cut(step):
        if step == "journal":
            board.control.power_cut(off_ms=100)
            raise Cut()
    with pytest.raises(Cut):
        deploy(board.port, fw, on_step=cut)


def test_a_deploy_cut_once_its_journal_exists_is_finished_by_the_next_boot(vboard_factory, tmp_path):
    board = vboard_factory(flash_dir=tmp_path / "flash")
    fw = write_firmware(tmp_path / "fw")
    deploy(board.port, fw)
    write_firmware(fw, a=3, b=3, big_seed=3, extra=False)

    deploy_cut_at_its_journal(board, fw)
    # main.py found the journal and carried it out: all new, none old, the removal done too.
    assert boot_version(board) == {"ev": "version", "a": 3, "b": 3, "big": 3}
    left = board_listing(board, "import os, json\n"
                                "print(json.dumps([os.listdir('/.nest'), os.listdir('/pkg')]))")
    assert "commit.json" not in left[0] and "extra.mpy" not in left[1]
    assert deploy(board.port, fw).send == []


def test_a_firmware_that_raises_at_boot_fails_the_deploy_with_its_traceback(vboard, tmp_path):
    fw = write_firmware(tmp_path / "fw")
    (fw / "main.py").write_text("import pkg.a\nraise ValueError('planted at boot ' + str(pkg.a.V))\n")
    r = subprocess.run([NEST, "deploy", "--port", vboard.port, "--src", str(fw)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1, r.stdout + r.stderr
    assert r.stderr.startswith("nest: the firmware did not start") and "main.py raised at boot" in r.stderr
    assert 'File "main.py"' in r.stderr and "ValueError: planted at boot 1" in r.stderr
    assert "Traceback" in r.stderr and r.stderr.count("Traceback") == 1  # the board's, no host one
    # main.py that ends quietly at the REPL is no started nest either
    (fw / "main.py").write_text("print('hello')\n")
    r = subprocess.run([NEST, "deploy", "--port", vboard.port, "--src", str(fw)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "main.py ended without starting the nest app" in r.stderr, r.stderr


USER_BOOT = "import network  # the maker's WiFi\nprint('{\"ev\": \"user-boot\"}')\n"


def test_the_boards_own_boot_py_is_kept_unless_force_and_a_cut_commit_still_finishes(vboard_factory,
                                                                                      tmp_path):
    board = vboard_factory(flash_dir=tmp_path / "flash")
    with BoardLink.open(board.port) as link:
        link.enter_raw()
        link.exec(f"open('/boot.py', 'w').write({USER_BOOT!r})")
    fw = write_firmware(tmp_path / "fw")
    dry = subprocess.run([NEST, "deploy", "--port", board.port, "--src", str(fw), "--dry-run"],
                         capture_output=True, text=True, timeout=60)
    assert "keep   boot.py (the board's own, not nest's; --force replaces it)" in dry.stdout, dry.stdout
    r = subprocess.run([NEST, "deploy", "--port", board.port, "--src", str(fw)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "kept the board's own boot.py" in r.stdout, r.stdout + r.stderr
    assert "the board is ready (new game)" in r.stdout
    assert board_listing(board, "import json\nprint(json.dumps(open('/boot.py').read()))") == USER_BOOT

    # The journal's guarantee does not lean on boot.py: main.py finishes a commit cut after it.
    write_firmware(fw, a=3, b=3, big_seed=3, extra=False)

    deploy_cut_at_its_journal(board, fw)
    assert boot_version(board) == {"ev": "version", "a": 3, "b": 3, "big": 3}
    assert board_listing(board, "import json\nprint(json.dumps(open('/boot.py').read()))") == USER_BOOT

    forced = subprocess.run([NEST, "deploy", "--port", board.port, "--src", str(fw), "--force", "--dry-run"],
                            capture_output=True, text=True, timeout=60)
    assert "delete boot.py (the board's own: --force replaces it)" in forced.stdout, forced.stdout
    assert deploy(board.port, fw, force=True).delete == ["boot.py"]
    assert "boot.py" not in board_listing(board, "import os, json\nprint(json.dumps(os.listdir('/')))")


def test_a_board_whose_mpy_version_differs_is_refused(vboard, tmp_path, monkeypatch):
    monkeypatch.setattr(deploy_mod, "mpy_cross_version", lambda: (6, 1))
    with pytest.raises(NestError, match=r"\.mpy v6\.3 but mpy-cross makes v6\.1"):
        deploy(vboard.port, write_firmware(tmp_path / "fw"))


def test_a_busy_port_is_named(vboard, tmp_path):
    with serial.Serial(vboard.port, exclusive=True):
        r = subprocess.run([NEST, "deploy", "--port", vboard.port, "--src", str(write_firmware(tmp_path))],
                           capture_output=True, text=True, timeout=60)
    # the holder is this pytest process: named from /proc on Linux
    who = f"(pid {os.getpid()})" if sys.platform.startswith("linux") else "another program"
    assert r.returncode == 1 and "is busy: " in r.stderr and f"{who} has it open" in r.stderr, r.stderr


def test_a_silent_port_is_no_answer_and_no_port_is_no_board(tmp_path):
    master, slave = os.openpty()
    tty.setraw(slave)
    try:
        with pytest.raises(NestError, match="no answer from the board") as e:
            deploy(os.ttyname(slave), write_firmware(tmp_path / "fw"))
        assert str(e.value).endswith("it sent nothing")  # words, not a Python repr (b'')
    finally:
        os.close(master)
        os.close(slave)
    env = dict(os.environ, XDG_RUNTIME_DIR=str(tmp_path / "run"))
    r = subprocess.run([NEST, "deploy", "--src", str(tmp_path / "fw")], capture_output=True, text=True,
                       env=env, timeout=60)
    assert r.returncode == 1 and "no ESP32 board found" in r.stderr and "Traceback" not in r.stderr


def test_files_that_are_not_python_are_deployed_and_host_side_ones_named(vboard, tmp_path):
    fw = write_firmware(tmp_path / "fw")
    (fw / "settings.json").write_text('{"volume": 3}')
    sound = bytes(range(256)) * 40  # 10 KB of binary: more than one transfer chunk
    (fw / "pkg" / "beep.wav").write_bytes(sound)
    (fw / "NOTES.md").write_text("# for the maker, not the board\n")
    first = deploy(vboard.port, fw, reset=False)
    assert {"settings.json", "pkg/beep.wav"} <= set(first.send)
    assert first.skipped == ["NOTES.md"] and first.summary().endswith("; not for the board: NOTES.md")
    on_board = board_listing(vboard, "import json, binascii, hashlib\nprint(json.dumps(["
                                     "open('/settings.json').read(), binascii.hexlify(hashlib.sha256("
                                     "open('/pkg/beep.wav', 'rb').read()).digest()).decode()]))")
    assert on_board == ['{"volume": 3}', hashlib.sha256(sound).hexdigest()]
    (fw / "settings.json").write_text('{"volume": 5}')
    assert deploy(vboard.port, fw, reset=False).send == ["settings.json"]  # hashed like the rest


def test_the_helpers_kept_on_the_board_are_used_only_when_they_are_this_versions(vboard, tmp_path):
    fw = write_firmware(tmp_path / "fw")
    deploy(vboard.port, fw, dry_run=True)
    assert board_listing(vboard, "import os, json\nprint(json.dumps(os.listdir('/')))") == []  # dry: nothing
    deploy(vboard.port, fw)
    sent, answers = [], []

    with BoardLink.open(vboard.port) as link:
        real = link.exec

        def counted(code, **kw):
            out = real(code, **kw)
            sent.append(len(code))
            answers.append(len(out))
            return out
        link.exec = counted
        assert deploy(vboard.port, fw, link=link).send == []
        assert max(sent) < 600, sent  # the 2.4 KB of helpers did not cross the line again
        assert max(answers) < 200, answers  # nor the listing: the board's tree is this one ("same")
        # a copy that is garbage, or another version's, is replaced, never run as it is
        link.enter_raw()  # the deploy's reset left the raw REPL
        real("open('/.nest/helpers.py', 'w').write('raise ValueError(1)')")
        sent.clear()
        write_firmware(fw, a=5)
        assert deploy(vboard.port, fw, link=link).send == ["pkg/a.mpy"] and max(sent) > 2000
    assert boot_version(vboard)["a"] == 5
