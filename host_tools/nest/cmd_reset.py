"""`nest reset [--hard]`: the way back from the REPL. The board restarts so main.py runs the nest
app, and what it says is checked as after a deploy: `ready`, or main.py's traceback."""

from nest.boardlink import DEFAULT_BAUD


def add_parser(sub):
    p = sub.add_parser("reset", help="restart the board so the nest app runs again (e.g. left at the REPL)",
                       description="Restarts the board so main.py starts the nest app, and waits for its "
                                   "`ready` line (main.py's traceback and exit 1 if it raises). A soft "
                                   "reset (Ctrl-D, as `mpremote reset --soft`; the same as leaving the "
                                   "REPL) unless --hard: machine.reset(), the chip restarted as by its EN "
                                   "button. Use it after a stopped `nest test`, mpremote, a REPL session.")
    p.add_argument("--port", help="serial port (default: the one ESP32 board plugged in)")
    p.add_argument("--hard", action="store_true", help="machine.reset(): restart the whole chip")
    p.add_argument("--baud", type=int, default=DEFAULT_BAUD, help=f"serial speed (default {DEFAULT_BAUD})")
    return p


def run(args):
    from nest.boardlink import BoardLink

    with BoardLink.open(args.port, baud=args.baud) as link:
        link.enter_raw()
        if args.hard:
            link.hard_reset()
        else:
            link.soft_reset_to_main()
        started = link.watch_boot()
        print(f"the board on {link.port} is {started}")
    return 0
