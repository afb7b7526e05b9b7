"""Start-up: `nest` imports only the module of the command it runs, so `nest --version` and
`nest ports` load none of the machinery (mpremote, esptool, aiohttp, the virtual board), and no
command but `nest web` loads aiohttp. (The times themselves are `make bench`'s: lab/bench_deploy.py.)"""

import json
import subprocess
import sys

import pytest

from nest.cli import COMMANDS

HEAVY = ("aiohttp", "mpremote", "esptool", "nest.vboard", "nest.deploy", "gulo.weigher")
PROBE = ("import sys, json\nfrom nest import cli\ncli.build_parser(sys.argv[1:])\n"
         f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))")


def loaded(*argv):
    r = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.mark.parametrize("argv", [["--version"], ["ports", "--no-probe"], ["replay", "x.jsonl"]])
def test_the_quick_commands_load_no_machinery(argv):
    assert loaded(*argv) == []


@pytest.mark.parametrize("name", [n for n in COMMANDS if n != "web"])
def test_no_command_but_web_loads_aiohttp(name):
    assert "aiohttp" not in loaded(name)


def test_help_still_lists_every_command():
    r = subprocess.run([sys.executable, "-m", "nest.cli", "--help"], capture_output=True, text=True,
                       timeout=60)
    for name in COMMANDS:
        assert f"    {name} " in r.stdout or f"    {name}\n" in r.stdout, name


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_command_describes_itself_in_its_help(name):
    from nest import cli

    sub = next(a for a in cli.build_parser([name])._actions if a.dest == "command")
    parser = sub.choices[name]
    assert parser.description and len(parser.description) > 40, f"nest {name} --help has no description"


def test_the_readmes_command_table_matches_the_commands():
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    table = readme[readme.index("## The `nest` command"):readme.index("## With a real board")]
    rows = set(re.findall(r"^\| `nest (\w+)", table, re.M))
    assert rows == set(COMMANDS), f"README rows {sorted(rows)} != commands {sorted(COMMANDS)}"
    assert "mpremote's own commands, not nest's" in table  # repl/exec/fs are mpremote's


def test_counted_nouns_follow_the_plural_rule():
    from nest.deploy import DeployReport
    from nest.words import plural

    assert [plural(n, "file") for n in (0, 1, 2)] == ["0 files", "1 file", "2 files"]
    one = DeployReport("/dev/ttyUSB0", False, send=["main.py"], bytes_sent=10)
    assert one.summary().startswith("sent 1 file (10 bytes)"), one.summary()


def test_the_vm_version_nest_looks_for_is_the_one_package_json_pins():
    import json
    from pathlib import Path

    from nest.vboard.launcher import VM_PACKAGE, VM_VERSION, find_vm

    pinned = json.loads((Path(__file__).resolve().parents[2] / "package.json").read_text())["dependencies"]
    assert pinned[VM_PACKAGE] == VM_VERSION
    assert find_vm().name == "micropython.mjs"  # the repository's own (npm ci)
