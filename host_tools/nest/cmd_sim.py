"""`nest sim`: run a virtual nest board (the MicroPython VM behind a serial port) until stopped."""

import signal
import sys
import threading
from pathlib import Path

from nest import ports
from nest.errors import NestError
from nest.vboard import VirtualBoard
from nest.vboard.launcher import TIMING_HELP, TIMINGS

STATUS_PERIOD_S = 0.5


def add_parser(subparsers):
    p = subparsers.add_parser("sim", help="run a virtual ESP32 nest board on a pseudo-terminal",
                              description="Run a virtual nest board: MicroPython 1.29 behind a serial port "
                                          "(open it with mpremote or any serial client), with simulated "
                                          "load cell, reed switch, buttons, buzzer and LEDs. Runs until "
                                          "Ctrl-C or SIGTERM.")
    p.add_argument("--headless", action="store_true", help="print nothing (no LED/status line)")
    p.add_argument("--port-file", type=Path, metavar="PATH",
                   help="write the serial port's path here once the board is ready")
    p.add_argument("--flash", type=Path, metavar="DIR", help="keep the board's filesystem in this folder")
    p.add_argument("--baud", type=int, default=115200, help="UART speed to emulate, 0 = unthrottled "
                                                            "(default: %(default)s)")
    p.add_argument("--control-port", type=int, default=0, metavar="N",
                   help="loopback TCP port of the control channel (default: any free port)")
    p.add_argument("--seed", type=int, default=1, help="seed of the simulated world (default: %(default)s)")
    p.add_argument("--timing", choices=TIMINGS, default="esp32", help=TIMING_HELP)
    return p


def run(args):
    if args.baud < 0:
        raise NestError(f"--baud: {args.baud} is not a baud rate (0 means unthrottled)", status=2)
    stop = threading.Event()
    previous = signal.signal(signal.SIGTERM, lambda *_: stop.set())
    board = VirtualBoard(flash_dir=args.flash, baud=args.baud, headless=args.headless, seed=args.seed,
                         control_port=args.control_port, timing=args.timing,
                         keep_world=True).start()  # with --flash, the nest as it was left, too
    host, cport = board.control_address
    token = board.control_address.token
    announcement = ports.announce_virtual_board(board.port, control=f"{host}:{cport}", control_token=token)
    crashed = False
    try:
        if args.port_file:
            tmp = args.port_file.with_name(args.port_file.name + ".tmp")
            tmp.write_text(board.port + "\n")
            tmp.replace(args.port_file)
        if not args.headless:
            speed = args.baud or "unthrottled"
            print(f"virtual nest board on {board.port}  (control: {host}:{cport}, baud {speed})")
            print(f'control channel: first line {{"token": "{token}"}}')
            print("stop with Ctrl-C")
        while not stop.is_set() and board.alive():
            if not args.headless:
                _status_line(board)
            stop.wait(STATUS_PERIOD_S)
        if not board.alive():
            crashed = True
            raise NestError(f"the virtual board stopped unexpectedly; its log: {board.log_path}")
    except KeyboardInterrupt:
        pass
    finally:
        board.stop(keep_log=crashed)
        announcement.unlink(missing_ok=True)
        if args.port_file:
            args.port_file.unlink(missing_ok=True)
        signal.signal(signal.SIGTERM, previous)
        if not args.headless:
            print()
    return 0


def _status_line(board):
    try:
        leds = board.control.leds()
        buzzer = board.control.buzzer()
    except NestError:
        return
    blocks = "".join(f"\x1b[38;2;{r};{g};{b}m\u2588" if (r or g or b) else "\x1b[0m\u00b7"
                     for r, g, b in leds)
    tone = f"{buzzer['freq']} Hz" if buzzer["freq"] and buzzer["duty_u16"] else "silent"
    sys.stdout.write(f"\rLEDs: {blocks or '(none written)'}\x1b[0m  buzzer: {tone:<10}")
    sys.stdout.flush()
