"""The ESP32 memory model (lab.heapmodel) on a unix port with the firmware frozen into its image
(lab/build_frozen_unix.sh, from firmware/manifest.py; docs/firmware-budgets.md, "Frozen").
The builds are a measurement tool, not part of `make test`: without them the tests that need them
skip and say how to build them. About 10 s when built."""

from pathlib import Path

import pytest

from lab import heapmodel as hm
from nest.errors import NestError

BIN = Path(__file__).resolve().parents[2] / "build" / "frozen-unix" / "bin"
FROZEN, PLAIN = BIN / "micropython-frozen-64", BIN / "micropython-plain-64"
needs_build = pytest.mark.skipif(
    not (FROZEN.is_file() and PLAIN.is_file()),
    reason=f"no frozen unix port in {BIN}: run lab/build_frozen_unix.sh (a measurement tool, not built "
           "by make)")


def first_area(exe):
    """The -X heapsize for the ESP32's first GC area (the budget: the heap never grows) at the
    pessimistic word ratio."""
    return hm.esp32_heap(hm.ESP32_GC_INITIAL_B, hm.WORD_RATIO, hm.probe(exe).harness)


def test_a_missing_executable_is_named(tmp_path):
    with pytest.raises(NestError, match="nowhere/micropython"):
        hm.micropython_path(tmp_path / "nowhere" / "micropython")


def test_an_executable_that_is_not_micropython_is_named():
    with pytest.raises(NestError, match="/bin/true: not a MicroPython unix port"):
        hm.port_facts("/bin/true")


@needs_build
def test_the_frozen_build_holds_the_firmware_and_the_control_build_does_not():
    assert hm.port_facts(FROZEN) == {"word": 8, "frozen": True}
    assert hm.port_facts(PLAIN) == {"word": 8, "frozen": False}


@needs_build
def test_a_frozen_game_runs_from_the_image_within_the_budget_in_the_first_area(tmp_path):
    s = hm.run(first_area(FROZEN), games=1, micropython=FROZEN, work=tmp_path)
    # the firmware came from the image: the flash folder holds the game's data only
    assert [p.name for p in (tmp_path / "flash").iterdir()] == ["data"]
    assert s.completed and s.frozen, (s, s.stderr)
    assert hm.within_budget(s)


@needs_build
def test_the_same_game_from_mpy_files_fails_the_budget():
    # the fault the frozen image removes: the firmware's bytecode, constants and names in RAM
    s = hm.run(first_area(PLAIN), games=1, micropython=PLAIN)
    assert not s.frozen
    assert s.memory_error, (s, s.stderr)  # 2026-11-23: at boot (docs/firmware-budgets.md, "Frozen")
    assert not hm.within_budget(s)


@needs_build
def test_a_planted_leak_in_the_frozen_firmware_fails_the_budget():
    # the LED driver keeps 256 B of every frame: the frozen firmware runs out of the first area
    s = hm.run(first_area(FROZEN), games=1, leak=256, micropython=FROZEN)
    assert s.memory_error, (s, s.stderr)
    assert not hm.within_budget(s)
