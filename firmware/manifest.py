# The nest's firmware frozen into a custom MicroPython image: frozen bytecode, its constants and
# its names (qstrs) stay in flash, so only the objects the firmware makes take heap (a .mpy on
# the filesystem is loaded into RAM whole). The route to more headroom in
# docs/firmware-budgets.md; NOT built here (it needs the ESP-IDF toolchain): the steps are in
# docs/firmware-image.md. Format: micropython docs/reference/manifest.rst (include, package,
# module); tests/test_firmware_manifest.py checks that it names every firmware file.
#
# `nest deploy` does not send this file to the board (host_tools/nest/deploy.py HOST_ONLY).

# ESP32_GENERIC has no manifest of its own: the port's (asyncio, neopixel, the _boot.py that
# mounts the filesystem, ...), which an image without it would lack.
include("$(PORT_DIR)/boards/manifest.py")

package(
    "gulo",
    files=[
        "__init__.py",
        "app.py",
        "board.py",
        "calibration.py",
        "clock.py",
        "commands.py",
        "console.py",
        "debounce.py",
        "gamelog.py",
        "gamestore.py",
        "hx711.py",
        "ledview.py",
        "nestcheck.py",
        "nestfault.py",
        "peripherals.py",
        "prng.py",
        "rules.py",
        "sounds.py",
        "store.py",
        "turnflow.py",
        "vocab.py",
        "weigher.py",
    ],
)
module("main.py")
