"""`nest flash`: put MicroPython on the board with esptool, then the firmware with `nest deploy`."""

from pathlib import Path

from nest.deploy import ROOT, deploy
from nest.errors import NestError
from nest.flashing import flash_firmware, read_image
from nest.ports import pick_port


def add_parser(sub):
    p = sub.add_parser("flash", help="erase the ESP32 and write MicroPython onto it (esptool)")
    p.add_argument("--firmware", metavar="FILE.bin",
                   help="MicroPython image (default: the one ESP32_GENERIC*.bin in this folder)")
    p.add_argument("--port", help="serial port (default: the one ESP32 board plugged in)")
    p.add_argument("--baud", type=int, default=460800, help="flashing speed (default 460800)")
    p.add_argument("--no-deploy", action="store_true",
                   help="only MicroPython: do not deploy the firmware after")
    p.add_argument("--src", default=str(ROOT / "firmware"),
                   help="firmware folder to deploy (default firmware/)")
    return p


def find_image(folder="."):
    found = sorted(Path(folder).glob("ESP32_GENERIC*.bin"))
    if len(found) == 1:
        return found[0]
    if not found:
        raise NestError("no firmware given: download ESP32_GENERIC v1.29 (.bin) from "
                        "micropython.org/download/ESP32_GENERIC and pass --firmware FILE.bin", status=2)
    names = ", ".join(str(f) for f in found)
    raise NestError(f"several firmware images here ({names}): choose one with --firmware", status=2)


def run(args):
    image = read_image(args.firmware or find_image())
    port = pick_port(args.port)
    flash_firmware(port, image, baud=args.baud)
    if not args.no_deploy:
        # The board boots MicroPython (and formats its file system) first: the deploy's raw-REPL
        # entry retries for some seconds, which covers that.
        report = deploy(port, args.src)
        print(report.summary())
    return 0
