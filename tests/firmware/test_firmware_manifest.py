"""firmware/manifest.py (the firmware frozen into a custom MicroPython image, docs/firmware-image.md)
names every firmware file the board runs, and only those. The manifest is read as MicroPython's
build reads it (lab/manifestfile.py executes it with include, package, module... as its
functions): here the same calls are recorded. A firmware module added and not listed fails."""

from pathlib import Path

import pytest

from nest import deploy

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"


def frozen_files(manifest):
    """The files a manifest freezes, relative to its folder, and what it includes."""
    frozen, included = set(), []

    def package(package_path, files=None, base_path=".", opt=None):
        assert files is not None, f"package({package_path!r}) without files=: every file must be listed"
        assert base_path == ".", "the package lies next to the manifest"
        frozen.update(f"{package_path}/{f}" for f in files)

    def module(module_path, base_path=".", opt=None):
        assert base_path == "."
        frozen.add(module_path)

    def include(path):
        included.append(path)

    exec(compile(manifest.read_text(), str(manifest), "exec"),  # noqa: S102  (as makemanifest does)
         {"package": package, "module": module, "include": include})
    return frozen, included


def board_files(folder):
    """The Python files `nest deploy` sends to the board from a firmware folder (source names)."""
    skipped = []
    built = deploy.build(folder, skipped)
    sources = {name[:-4] + ".py" if name.endswith(".mpy") else name for name in built}
    return {name for name in sources if name.endswith(".py") and name != "boot.py"}


def missing_and_extra(folder):
    frozen, _ = frozen_files(folder / "manifest.py")
    files = board_files(folder)
    return sorted(files - frozen), sorted(frozen - files)


def test_the_manifest_names_every_firmware_file():
    frozen, included = frozen_files(FIRMWARE / "manifest.py")
    assert "main.py" in frozen and "gulo/app.py" in frozen and "gulo/__init__.py" in frozen
    assert included == ["$(PORT_DIR)/boards/manifest.py"]  # the port's own modules (asyncio...)
    assert missing_and_extra(FIRMWARE) == ([], [])


def test_nest_deploy_does_not_send_the_manifest():
    assert "manifest.py" not in deploy.build(FIRMWARE) and "manifest.mpy" not in deploy.build(FIRMWARE)


def copy_firmware(tmp_path):
    dest = tmp_path / "firmware"
    for src in FIRMWARE.rglob("*"):
        parts = src.relative_to(FIRMWARE).parts
        if src.is_file() and "tests" not in parts and "__pycache__" not in parts:
            out = dest / src.relative_to(FIRMWARE)
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(src.read_bytes())
    return dest


@pytest.mark.parametrize("planted", ["gulo/extra.py", "helper.py"])
def test_planted_a_firmware_file_missing_from_the_manifest_fails(tmp_path, planted):
    fw = copy_firmware(tmp_path)
    (fw / planted).write_text("X = 1\n")
    assert missing_and_extra(fw) == ([planted], [])


def test_planted_a_listed_file_that_is_gone_fails(tmp_path):
    fw = copy_firmware(tmp_path)
    (fw / "gulo" / "prng.py").unlink()
    assert missing_and_extra(fw) == ([], ["gulo/prng.py"])
