"""`nest ports`: the serial ports, with USB identity and bridge chip, ESP32-like ones marked; for
each board, what it runs (MicroPython version and board name, as `mpflash list` shows them, and
the nest firmware deployed on it)."""

from nest.boardtrust import plain
from nest.errors import NestError
from nest.ports import list_ports


def add_parser(sub):
    p = sub.add_parser("ports", help="list serial ports and what each board runs (MicroPython, nest)")
    p.add_argument("--no-probe", action="store_true",
                   help="only the USB identity: do not ask the boards what they run (that stops a running "
                        "game for a moment: it is soft-reset after, and resumes)")
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
        if p.esp32_like and not args.no_probe:
            print(f"    {plain(probe(p.device))}", flush=True)
    boards = sum(p.esp32_like for p in ports)
    print(f"{boards} ESP32-like port(s) (*)" + ("; commands pick it by themselves" if boards == 1 else "")
          + ("; choose one with --port PORT or --port id:SERIAL" if boards > 1 else ""))
    return 0
