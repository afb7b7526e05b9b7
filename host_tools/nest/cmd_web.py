"""`nest web`: play Gulo Gulo in the browser on a virtual nest running the real firmware."""

import asyncio
import os
import signal
import sys
import webbrowser
from pathlib import Path

from nest.errors import NestError
from nest.vboard.launcher import TIMING_HELP, TIMINGS
from nest.web.server import DEFAULT_FLASH, NestSession, lock_flash, serve


def add_parser(subparsers):
    p = subparsers.add_parser("web", help="play in the browser on a virtual nest (the real firmware)",
                              description="Start a virtual nest board running the firmware and serve a "
                                          "page on 127.0.0.1 to play on it: the bowl, the pole, the LEDs, "
                                          "the buttons and the buzzer as the device has them. Runs until "
                                          "Ctrl-C. The game lives in the board's flash folder, so it "
                                          "survives a page reload and a restart.")
    p.add_argument("--port", type=int, default=8765, help="TCP port on 127.0.0.1, 0 = any free one "
                                                          "(default: %(default)s)")
    p.add_argument("--no-open", action="store_true", help="do not open a browser, only print the URL")
    p.add_argument("--flash", type=Path, default=DEFAULT_FLASH, metavar="DIR",
                   help="the board's flash folder; its gulo/ and main.py are refreshed from firmware/ "
                        "(default: build/web-flash)")
    p.add_argument("--seed", type=int, default=1,
                   help="seed of the simulated world and of the shaky hand (default: %(default)s)")
    p.add_argument("--timing", choices=TIMINGS, default="esp32", help=TIMING_HELP)
    return p


def run(args):
    if not 0 <= args.port <= 65535:
        raise NestError(f"--port: {args.port} is not a TCP port (0 means any free one)", status=2)
    lock = lock_flash(args.flash, args.port)  # held until the process ends
    session = NestSession(flash_dir=args.flash, seed=args.seed, timing=args.timing)

    def ready(url):
        print(f"nest web: play at {url}  (Ctrl-C to stop)", flush=True)
        # Only with a desktop: on a headless machine a browser launch would only print errors.
        if not args.no_open and (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
            webbrowser.open(url)

    async def main():
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        # SIGHUP: the terminal closed. The game is on the flash folder after every save anyway
        # (the virtual board writes it through at each rename); this also stops the board cleanly.
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            loop.add_signal_handler(sig, stop.set)
        await serve(session, port=args.port, on_ready=ready, stop=stop)

    print("nest web: starting the virtual nest ...", file=sys.stderr, flush=True)
    try:
        asyncio.run(main())
    finally:
        os.close(lock)
    return 0
