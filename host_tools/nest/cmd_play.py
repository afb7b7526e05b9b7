"""`nest play`: a game of Gulo Gulo in the terminal, against the device's own turn engine.

You are the nest's sensors: say what happened at the table (`take R`, `alarm pole`), and the engine
moves the Gulos exactly as the board would. Every accepted action is appended to a game log that
`nest replay` reads back."""

import json
import os
import random
import sys
import time

from gulo.gamelog import encode, setup_record
from gulo.rules import Game, RuleError, state_json
from nest.errors import NestError
from nest.picture import render
from nest.words import LANGUAGES, Words, pick

HELP = """commands:
  reveal | r           turn over the next path tile (or the deck, on the last tile)
  choose C | c C       choose a colour face up ahead (C = G, Y, R or B)
  take C | t C         an egg of colour C came out cleanly (G, Y, R, B or P)
  alarm [pole|egg] | a EGG ALARM: the pole fell or another egg fell out
  call                 the players call the EGG ALARM the nest missed (alarm called)
  undo | u             undo the last verdict (and the picks after it): the same player again
  state                the game state as JSON
  help | ?             this text
  quit | q             stop (the log keeps the game)"""

_VERBS = {"r": "reveal", "reveal": "reveal", "c": "choose", "choose": "choose", "t": "take",
          "take": "take", "a": "alarm", "alarm": "alarm"}
_FIELD = {"choose": "colour", "take": "egg", "alarm": "cause"}


def add_parser(sub):
    p = sub.add_parser("play", help="play a game in the terminal with the device's turn engine",
                       description="A game of Gulo Gulo in the terminal, on the turn engine the board runs "
                                   "(no board needed): type reveal, choose R, take R, alarm pole, call, "
                                   "undo, help, quit. Every action is appended to a game log that `nest "
                                   "replay` reads.")
    p.add_argument("--players", type=int, default=2, help="2 to 6 (default 2)")
    p.add_argument("--variant", choices=("standard", "fast"), default="standard")
    p.add_argument("--seed", type=int, help="deal from this seed (default: a random one)")
    p.add_argument("--log", metavar="FILE", help="game log to write (default: gulo-SEED.jsonl)")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    p.add_argument("--lang", choices=LANGUAGES, help="de, en or fr (default: from LANG, else en)")
    return p


def parse_command(text):
    """An action dict from a typed command, or None for an empty line; NestError if unreadable."""
    words = text.split()
    if not words:
        return None
    if words[0].lower() == "call":  # the players call the alarm: docs/rules.md, "the last word"
        if len(words) > 1:
            raise NestError("call takes no argument")
        return {"do": "alarm", "cause": "called"}
    verb = _VERBS.get(words[0].lower())
    if verb is None:
        raise NestError(f"unknown command {words[0]!r} (type help)")
    action = {"do": verb}
    if verb in ("choose", "take"):
        if len(words) != 2:
            raise NestError(f"{verb} needs one colour, e.g. '{verb} R'")
        action[_FIELD[verb]] = words[1].upper()
    elif verb == "alarm" and len(words) > 1:
        action["cause"] = words[1].lower()
    elif len(words) > 1:
        raise NestError(f"{verb} takes no argument")
    return action


def run(args):
    seed = args.seed if args.seed is not None else random.randrange(1, 1_000_000)
    try:
        game = Game.new(args.players, args.variant, seed)
    except RuleError as e:
        raise NestError(str(e), status=2) from e
    colour = args.color == "always" or (args.color == "auto" and sys.stdout.isatty())
    words = Words(pick(args.lang))
    log_path = args.log or f"gulo-{seed}.jsonl"
    with open(log_path, "w") as log:
        record = setup_record(game)
        record["setup"]["seed"] = seed
        write_line(log, encode(record))
        starts = []  # where each action line begins: an undo cuts the file back there
        print(words.fmt("hello", seed=seed, log=log_path))
        while True:
            print()
            print(render(game, colour=colour, words=words))
            if game.winner is not None:
                return 0
            try:
                text = input(words.fmt("prompt", g=words.gulo(game.turn)))
            except EOFError:
                print()
                return 0
            word = text.strip().lower()
            if word in ("q", "quit", "exit"):
                return 0
            if word in ("?", "help"):
                print(HELP)
                continue
            if word == "state":
                print(state_json(game))
                continue
            if word in ("u", "undo"):
                try:
                    outcome = game.undo()
                except RuleError as e:
                    print(words.fmt("not_allowed", e=e))
                    continue
                drop_lines(log, starts, outcome["undone"])
                print(describe(outcome, words))
                continue
            try:
                action = parse_command(text)
                if action is None:
                    continue
                outcome = game.apply(action)
            except (NestError, RuleError) as e:
                print(words.fmt("not_allowed", e=e))
                continue
            action["t"] = int(time.time() * 1000)
            starts.append(log.tell())
            write_line(log, json.dumps(action))
            print(describe(outcome, words))


def write_line(log, line):
    # Flushed and synced per action: a killed terminal loses at most the action being typed.
    log.write(line + "\n")
    log.flush()
    os.fsync(log.fileno())


def drop_lines(log, starts, n):
    """Cut the last n action lines off the log (an undo): the log keeps only legal actions, as
    the nest's does (docs/rules.md, "The players have the last word"), synced like a write."""
    at = starts[len(starts) - n]
    del starts[len(starts) - n:]
    log.flush()
    log.truncate(at)
    log.seek(at)
    os.fsync(log.fileno())


def describe(outcome, words=None):
    """One outcome of the engine in words: who, which egg, where the Gulo goes."""
    w = words or Words()
    event = outcome["event"]
    g = w.gulo(outcome["player"])
    if event == "reveal":
        c = outcome["demand"]
        return w.fmt("reveals", k=outcome["tile"], c=w.colour(c), g=g, egg=w.egg(c))
    if event == "draw":
        c = outcome["demand"]
        return w.fmt("draws", c=w.colour(outcome["tile"]), g=g, egg=w.egg(c))
    if event == "choose":
        return w.fmt("goes_for", g=g, c=w.colour(outcome["demand"]))
    if event == "junior":
        return w.fmt("junior", g=g)
    if event == "undo":
        return w.fmt("undone", g=g, egg=w.egg(outcome["demand"]))
    frm, to = w.where(outcome["from"]), w.where(outcome["to"])
    if event == "success":
        c = outcome["egg"]
        text = w.fmt("jumps", g=g, egg=w.egg(c), c=w.colour_adj(c), frm=frm, to=to)
        if outcome.get("winner") is not None:
            return text + w.fmt("frees", g=g)
        if outcome["last_egg"]:
            text += w.fmt("last_egg", c=w.colour_adj(c), g=g)
        return text
    why = w["why"].get(outcome["cause"], outcome["cause"])
    if outcome["from"] == outcome["to"]:   # no tile of the colour behind, already at the start
        k = outcome["to"]
        at = w["stays_start"] if k == 0 else w.fmt("stays_tile", k=k)
        return w.fmt("alarm_stays", why=why, g=g, at=at)
    return w.fmt("alarm", why=why, g=g, frm=frm, to=to)
