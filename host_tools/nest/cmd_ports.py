"""`nest ports`: the serial ports, with USB identity and bridge chip, ESP32-like ones marked; with
--probe, for each board what it runs (MicroPython version and board name, as `mpflash list` shows
them, and the nest firmware deployed on it)."""

from nest.boardtrust import plain
from nest.errors import NestError
from nest.ports import list_ports
from nest.words import plural


def add_parser(sub):
    p = sub.add_parser("ports", help="list serial ports; --probe: what each board runs (MicroPython, nest)",
                       description="Lists the serial ports with their USB identity (VID:PID, serial number, "
                                   "bridge chip), ESP32-like ones marked. --probe also asks each board what "
                                   "it runs (MicroPython version and board, the nest firmware deployed): "
                                   "that stops a running game and soft-resets the board (the game resumes), "
                                   "so it is not done unasked.")
    ask = p.add_mutually_exclusive_group()
    ask.add_argument("--probe", action="store_true",
                     help="ask each board what it runs (stops a running game for a moment: it is "
                          "soft-reset after, and resumes)")
    ask.add_argument("--no-probe", dest="probe", action="store_false",
                     help="only the USB identity (the default)")
    return p


def probe(port):
    """One line saying what the board on `port` runs, or why it could not be asked."""
    from nest.boardinfo import describe, identify
    from nest.boardlink import BoardLink

    try:
        with BoardLink.open(port) as link:
            link.enter_raw(attempts=1, banner_timeout=1.0)
            info = identify(link)
            link.soft_reset_to_main()  # back to what it ran: main.py starts again
        return describe(info)
    except NestError as e:
        text = str(e)
        return text if "busy" in text else "no MicroPython answer"


def run(args):
    ports = list_ports()
    if not ports:
        print("no serial ports")
        return 0
    print(f"  {'PORT':<16} {'VID:PID':<10} {'SERIAL':<18} {'BRIDGE':<28} DESCRIPTION")
    for p in ports:
        print(plain(("* " if p.esp32_like else "  ") + p.line()), flush=True)  # USB strings cross a wire too
        if p.esp32_like and args.probe:
            print(f"    {plain(probe(p.device))}", flush=True)
    boards = sum(p.esp32_like for p in ports)
    print(f"{plural(boards, 'ESP32-like port')} (*)"
          + ("; commands pick it by themselves" if boards == 1 else "")
          + ("; choose one with --port PORT or --port id:SERIAL" if boards > 1 else ""))
    return 0
