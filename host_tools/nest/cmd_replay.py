"""`nest replay FILE...`: replay game logs and show where each game stands."""

import sys

from gulo.rules import state_json
from nest.errors import NestError
from nest.picture import render
from nest.replay import ReplayError, replay_file
from nest.words import LANGUAGES, Words, pick


def add_parser(sub):
    p = sub.add_parser("replay", help="replay game logs (JSON Lines) and show the board",
                       description="Replay game logs with the device's turn engine. Every line is "
                                   "checked against the rules; a bad line is reported as FILE:LINE: reason "
                                   "(exit status 2).")
    p.add_argument("files", nargs="+", metavar="FILE", help="game log(s) as written by the nest")
    p.add_argument("--json", action="store_true",
                   help="print the game-state JSON of each file, one line per file, in order")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help="colour the picture with ANSI escapes (default: when writing to a terminal)")
    p.add_argument("--lang", choices=LANGUAGES,
                   help="words of the picture: de, en or fr (default: from LANG)")
    return p


def run(args):
    colour = args.color == "always" or (args.color == "auto" and sys.stdout.isatty())
    words = Words(pick(args.lang))
    failed = 0
    for i, path in enumerate(args.files):
        try:
            game = replay_file(path)
        except NestError as e:
            # Every file is tried; each bad one is named, and the exit status says something failed.
            print(e if isinstance(e, ReplayError) else f"nest: {e}", file=sys.stderr)
            failed = e.status
            continue
        if args.json:
            print(state_json(game))
        else:
            if i:
                print()
            print(render(game, title=path, colour=colour, words=words))
    sys.stdout.flush()
    return failed
